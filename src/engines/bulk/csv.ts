import { policyColumns } from "../policy/apply";
import type { Product } from "../product";
import { resultsPrefix } from "./jobs";

export type Cell = string | number | boolean | null;

/** The header every product's results share: `index`, `input`, the product's columns, its policy, then billing. */
export const csvHeader = (product: Product) => ["index", "input", ...(product.bulk?.columns ?? []), ...policyColumns(product), "credits_used", "suppressed"];

/**
 * Text a spreadsheet would run as a formula (CSV injection): a cell starting with `=`, `+`, `-` or `@`, also after
 * leading whitespace (spreadsheets trim it), or starting with a tab, carriage return or line feed.
 */
const FORMULA = /^(\s*[=+\-@]|[\t\r\n])/;

export function csvCell(value: Cell): string {
  if (value === null) return "";
  const text = String(value);
  // Quote what would break the row, and neutralise formulas in text (numbers are ours, and a number is no formula).
  const safe = typeof value === "string" && FORMULA.test(text) ? `'${text}` : text;
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

/** Positions of the columns whose value names a counter: the verdict column, then any `tallyColumns`. */
export const counterColumns = (product: Product) => {
  const header = csvHeader(product);
  return [product.bulk?.verdictColumn ?? "", ...(product.bulk?.tallyColumns ?? [])].map((column) => header.indexOf(column));
};

/** Rows are sent in pieces of this many lines. */
const LINES_PER_PIECE = 1_000;

/** The row's input position: its first cell, a plain number. */
const indexOf = (line: string) => Number(line.slice(0, line.indexOf(",")));

/**
 * The header, then every row in input order; with a variant, only rows whose counter columns hold it. Parts are
 * stored per chunk of distinct values (a later copy is written with its first occurrence), so the rows of all parts
 * are put back in input order here: one run is at most 100,000 short lines.
 */
export function resultsStream(env: Env, jobId: number, product: Product, variant: string | undefined): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const header = csvHeader(product);
  const counted = counterColumns(product);
  const holds = (line: string) => {
    const cells = parseCsvLine(line);
    return counted.some((column) => cells[column] === variant);
  };
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(encoder.encode(`${header.join(",")}\n`));
      const rows: string[] = [];
      let cursor: string | undefined;
      do {
        const listed = await env.RESULTS.list({ prefix: resultsPrefix(jobId), ...(cursor ? { cursor } : {}) });
        const texts = await Promise.all(listed.objects.map(async ({ key }) => (await (await env.RESULTS.get(key))?.text()) ?? ""));
        for (const text of texts) {
          for (const line of text.split("\n")) if (line && (!variant || holds(line))) rows.push(line);
        }
        cursor = listed.truncated ? listed.cursor : undefined;
      } while (cursor);
      rows.sort((a, b) => indexOf(a) - indexOf(b));
      for (let i = 0; i < rows.length; i += LINES_PER_PIECE) controller.enqueue(encoder.encode(`${rows.slice(i, i + LINES_PER_PIECE).join("\n")}\n`));
      controller.close();
    },
  });
}
