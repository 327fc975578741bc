import { policyColumns } from "../policy/apply";
import type { BulkProduct } from "../product";
import { resultsPrefix } from "./jobs";

export type Cell = string | number | boolean | null;

/** The header every product's results share: `index`, `input`, the product's columns, its policy, then billing. */
export const csvHeader = (product: BulkProduct) => [
  "index",
  "input",
  ...(product.bulk?.columns ?? []),
  ...policyColumns(product),
  "credits_used",
  "suppressed",
];

/**
 * Text a spreadsheet would run as a formula (CSV injection): a cell starting with `=`, `+`, `-` or `@`, also after
 * leading whitespace (spreadsheets trim it), or starting with a tab, carriage return or line feed.
 */
const FORMULA = /^(\s*[=+\-@]|[\t\r\n])/;

/** The counters (and results variants) one row of `header` belongs to: the product's `counts`, or its verdict cell. */
export function rowCounters(product: BulkProduct, header: string[], cells: string[]): string[] {
  const shape = product.bulk!;
  if (!shape.counts) return [cells[header.indexOf(shape.verdictColumn)]!];
  return shape.counts(Object.fromEntries(header.map((column, i) => [column, cells[i] ?? ""])));
}

export function csvCell(value: Cell): string {
  if (value === null) return "";
  const text = String(value);
  // Quote what would break the row, and neutralise spreadsheet formulas (CSV injection) in text. A signed number (an
  // E.164 phone number, a negative longitude) is data, not a formula, and stays as written.
  const safe = typeof value === "string" && FORMULA.test(text) && !/^[+-]\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function parseCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") cells.push(cell), (cell = "");
    else cell += ch;
  }
  cells.push(cell);
  return cells;
}

/**
 * A stored part: one JSON string per row, one per line. A row is a whole CSV record, and a quoted cell may hold CR or
 * LF (RFC 4180), so rows are never split on line breaks of their own text. Parts written before this format held the
 * rows themselves, one per line, each starting with its index (a digit), never with `"`: both read back.
 */
export const partText = (rows: readonly string[]): string => rows.map((row) => `${JSON.stringify(row)}\n`).join("");

export function partRows(text: string): string[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => (line.startsWith('"') ? (JSON.parse(line) as string) : line));
}

/** Rows are sent in pieces of this many records. */
const ROWS_PER_PIECE = 1_000;

/** The row's input position: its first cell, a plain number. */
const indexOf = (row: string) => Number(row.slice(0, row.indexOf(",")));

/**
 * The header, then every row in input order; with a variant, only rows whose counter columns hold it. Parts are
 * stored per chunk of distinct values (a later copy is written with its first occurrence), so the rows of all parts
 * are put back in input order here: one run is at most 100,000 short lines.
 */
export function resultsStream(
  env: Env,
  jobId: number,
  product: BulkProduct,
  variant: string | undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const header = csvHeader(product);
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(encoder.encode(`${header.join(",")}\n`));
      const rows: string[] = [];
      let cursor: string | undefined;
      do {
        const listed = await env.RESULTS.list({ prefix: resultsPrefix(jobId), ...(cursor ? { cursor } : {}) });
        const texts = await Promise.all(
          listed.objects.map(async ({ key }) => (await (await env.RESULTS.get(key))?.text()) ?? ""),
        );
        for (const text of texts) {
          for (const row of partRows(text))
            if (!variant || rowCounters(product, header, parseCsvLine(row)).includes(variant)) rows.push(row);
        }
        cursor = listed.truncated ? listed.cursor : undefined;
      } while (cursor);
      rows.sort((a, b) => indexOf(a) - indexOf(b));
      for (let i = 0; i < rows.length; i += ROWS_PER_PIECE)
        controller.enqueue(encoder.encode(`${rows.slice(i, i + ROWS_PER_PIECE).join("\n")}\n`));
      controller.close();
    },
  });
}
