import { policyColumns } from "../policy/apply";
import type { Product } from "../product";
import { resultsPrefix } from "./jobs";

export type Cell = string | number | boolean | null;

/** The header every product's results share: `index`, `input`, the product's columns, its policy, then billing. */
export const csvHeader = (product: Product) => ["index", "input", ...(product.bulk?.columns ?? []), ...policyColumns(product), "credits_used", "suppressed"];

export function csvCell(value: Cell): string {
  if (value === null) return "";
  const text = String(value);
  // Quote what would break the row, and neutralise spreadsheet formulas (CSV injection) in text; a number such as a
  // negative longitude is no formula and stays as it is.
  const safe = typeof value === "string" && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
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

/** The header, then every stored part in order; with a variant, only rows whose counter columns hold it. */
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
      let cursor: string | undefined;
      do {
        const listed = await env.RESULTS.list({ prefix: resultsPrefix(jobId), ...(cursor ? { cursor } : {}) });
        for (const { key } of listed.objects.sort((a, b) => a.key.localeCompare(b.key))) {
          const text = (await (await env.RESULTS.get(key))?.text()) ?? "";
          const lines = variant ? text.split("\n").filter((line) => line && holds(line)) : [text];
          if (lines.length) controller.enqueue(encoder.encode(variant ? `${lines.join("\n")}\n` : text));
        }
        cursor = listed.truncated ? listed.cursor : undefined;
      } while (cursor);
      controller.close();
    },
  });
}
