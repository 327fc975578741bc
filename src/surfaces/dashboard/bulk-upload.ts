import { parse } from "csv-parse/sync";
import { z } from "zod";
import type { Product } from "../../engines/product";
import { MAX_BULK_ROWS } from "../bulk-acts";

/** A file bigger than this is refused before it is read (100,000 rows of a few dozen bytes are well under it). */
export const UPLOAD_MAX_BYTES = 16 * 1024 * 1024;

/** A first cell that names the column rather than holding a value: the row is the file's header. */
const HEADER_NAMES = new Set(["value", "values", "input", "inputs"]);

export type Upload = { list: unknown[] } | { errors: string[] };

/**
 * Whether the product's rows are objects of named fields (consistency: `{email, phone, ip}`), read from a CSV's
 * header, rather than one value a row.
 */
export const rowsAreObjects = (product: Product) => !product.bulk?.rows && product.input instanceof z.ZodObject;

const isCsv = (file: File) => /\.csv$/i.test(file.name) || /^(text\/csv|application\/vnd\.ms-excel)/i.test(file.type);

/** The file's text: UTF-8 (a BOM dropped), no NUL bytes; anything else is not a text file. */
async function textOf(file: File): Promise<string | null> {
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(await file.arrayBuffer());
    return text.includes("\u0000") ? null : text.replace(/^\uFEFF/, "");
  } catch {
    return null;
  }
}

/** CSV records (RFC 4180, csv-parse: quoted cells may hold commas and line breaks), or the parser's complaint. */
function records(text: string): string[][] | string {
  try {
    return parse(text, { skip_empty_lines: true, relax_column_count: true, trim: true }) as string[][];
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A header row: the file's first row names a named column, or its first cell names the product or its field. */
function looksLikeHeader(product: Product, first: string[]): boolean {
  const cell = (first[0] ?? "").toLowerCase();
  const field = product.bulk!.field.toLowerCase();
  return HEADER_NAMES.has(cell) || cell === product.name || cell === field || `${cell}s` === field;
}

/** One value a row: the named column (the first row is then the header), else the first column; empty cells skipped. */
function valuesOf(product: Product, rows: string[][], column: string): unknown[] | string {
  if (column) {
    const header = (rows[0] ?? []).map((c) => c.toLowerCase());
    const at = header.indexOf(column.toLowerCase());
    if (at < 0) return `column: The first row has no column named "${column}" (it has ${header.join(", ")}).`;
    return rows.slice(1).flatMap((r) => (r[at] ? [r[at]] : []));
  }
  const body = rows.length && looksLikeHeader(product, rows[0]!) ? rows.slice(1) : rows;
  return body.flatMap((r) => (r[0] ? [r[0]] : []));
}

/** Objects of the header's named fields, empty cells left out (consistency rows). */
function objectsOf(rows: string[][]): unknown[] | string {
  const header = (rows[0] ?? []).map((c) => c.toLowerCase());
  if (header.length < 2) return "file: A CSV whose first row names the fields (email, phone, ip, ...) is needed.";
  return rows.slice(1).map((r) => Object.fromEntries(header.flatMap((name, i) => (r[i] ? [[name, r[i]]] : []))));
}

/**
 * The list an uploaded file carries for the product: a text file is one value a line; a CSV gives its first column or
 * the named one. A file that is empty, not text, not CSV, or over the limits is refused with a reason, before any
 * request is made.
 */
export async function readUpload(product: Product, file: unknown, column: string): Promise<Upload> {
  if (!(file instanceof File) || file.size === 0) return { errors: ["file: Choose a CSV or text file that has rows."] };
  if (file.size > UPLOAD_MAX_BYTES)
    return { errors: [`file: At most ${UPLOAD_MAX_BYTES / 1024 / 1024} MB; split the list into several runs.`] };
  const text = await textOf(file);
  if (text === null) return { errors: ["file: Not a text file (UTF-8 CSV or one value a line)."] };
  let list: unknown[] | string;
  if (isCsv(file) || column || rowsAreObjects(product)) {
    const rows = records(text);
    if (typeof rows === "string") return { errors: [`file: Not a readable CSV file (${rows}).`] };
    list = rowsAreObjects(product) ? objectsOf(rows) : valuesOf(product, rows, column);
  } else {
    const lines = text.split(/\r?\n/).map((line) => line.trim());
    const values = lines.filter((line) => line !== "");
    list = values.length && looksLikeHeader(product, [values[0]!]) ? values.slice(1) : values;
  }
  if (typeof list === "string") return { errors: [list] };
  if (!list.length) return { errors: ["file: The file has no rows to check."] };
  if (list.length > MAX_BULK_ROWS)
    return {
      errors: [`file: At most ${MAX_BULK_ROWS.toLocaleString("en")} rows a run (this file has ${list.length}).`],
    };
  return { list };
}
