import type { Product } from "../product";
import { resultsPrefix } from "./jobs";

export type Cell = string | number | boolean | null;

/** The header every product's results share: `index`, `input`, the product's columns, then the billing columns. */
export const csvHeader = (product: Product) => ["index", "input", ...(product.bulk?.columns ?? []), "credits_used", "suppressed"];

/** The counters (and results variants) one row of `header` belongs to: the product's `counts`, or its verdict cell. */
export function rowCounters(product: Product, header: string[], cells: string[]): string[] {
  const shape = product.bulk!;
  if (!shape.counts) return [cells[header.indexOf(shape.verdictColumn)]!];
  return shape.counts(Object.fromEntries(header.map((column, i) => [column, cells[i] ?? ""])));
}

export function csvCell(value: Cell): string {
  if (value === null) return "";
  const text = String(value);
  // Quote what would break the row, and neutralise spreadsheet formulas (CSV injection). A signed number (an E.164
  // phone number, a negative count) is data, not a formula, and stays as written.
  const formula = /^[=+\-@\t\r]/.test(text) && !/^[+-]\d+(\.\d+)?$/.test(text);
  const safe = formula ? `'${text}` : text;
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

/** The header, then every stored part in order; with a variant, only rows whose verdict column holds it. */
export function resultsStream(env: Env, jobId: number, product: Product, variant: string | undefined): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const header = csvHeader(product);
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(encoder.encode(`${header.join(",")}\n`));
      let cursor: string | undefined;
      do {
        const listed = await env.RESULTS.list({ prefix: resultsPrefix(jobId), ...(cursor ? { cursor } : {}) });
        for (const { key } of listed.objects.sort((a, b) => a.key.localeCompare(b.key))) {
          const text = (await (await env.RESULTS.get(key))?.text()) ?? "";
          const lines = variant ? text.split("\n").filter((line) => line && rowCounters(product, header, parseCsvLine(line)).includes(variant)) : [text];
          if (lines.length) controller.enqueue(encoder.encode(variant ? `${lines.join("\n")}\n` : text));
        }
        cursor = listed.truncated ? listed.cursor : undefined;
      } while (cursor);
      controller.close();
    },
  });
}
