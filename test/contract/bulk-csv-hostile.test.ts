/**
 * Results CSV of hostile rows, once per product with `bulk` (from the registry, plus the fake products): cells with
 * CR, LF, CRLF, quotes, commas and spreadsheet formulas (`=`, `+`, `-`, `@`, tab, CR, LF prefixes, also after spaces)
 * at the start, middle and end of a value, at the start, end and chunk boundary of a run, with exact and respelled
 * copies. The file is read with csv-parse in strict RFC 4180 mode: every input row comes back exactly once, whole, in
 * input order, its `input` cell as sent (formulas neutralised with a leading `'`, OWASP "CSV Injection"), and every
 * `?variant=` file holds exactly the rows its counter counts.
 */
import { env } from "cloudflare:test";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { createJob } from "../../src/engines/bulk/create";
import { csvHeader, resultsStream } from "../../src/engines/bulk/csv";
import { CHUNK_ENTRIES, jobById, jobView } from "../../src/engines/bulk/jobs";
import { runJob } from "../../src/engines/bulk/run";
import type { Product } from "../../src/engines/product";
import { capturedQueue, funded, lookupWith, rand, setUp, subjectsWith, type Samples } from "./helpers";

const SUBJECTS = subjectsWith((p) => p.bulk);
beforeAll(() => setUp(SUBJECTS));

const PAYLOAD = "cmd|' /C calc'!A0";
const FORMULA_PREFIXES = ["=", "+", "-", "@", "\t", "\r", "\n", " =", "  +", "\r\n@", "=+"];
const BREAKS = ["\r", "\n", "\r\n", "\n\r", '"', '""', ",", '",\n"', '\r\n"=1+1,'];

/** Hostile texts, each short enough for every product's input (64 characters). */
function hostileTexts(): string[] {
  const texts = FORMULA_PREFIXES.map((prefix) => `${prefix}${PAYLOAD}`);
  for (const cut of BREAKS) texts.push(`${cut}a${rand()}`, `a${rand()}${cut}b`, `a${rand()}${cut}`);
  return texts;
}

/** `text` as the product's input: the value itself, or in an object input its first text field. */
function carrying(sample: unknown, text: string): unknown {
  if (typeof sample === "string") return text;
  const object = { ...(sample as Record<string, unknown>) };
  const field = Object.keys(object).find((key) => typeof object[key] === "string")!;
  object[field] = text;
  return object;
}

/** Spreadsheet formula triggers (OWASP): a cell must not start with one unless it is a signed number. */
const TRIGGER = /^\s*[=+\-@]|^[\t\r\n]/;
const neutralised = (text: string) => (TRIGGER.test(text) && !/^[+-]\d+(\.\d+)?$/.test(text) ? `'${text}` : text);
const cellOf = (input: unknown) => neutralised(typeof input === "string" ? input : JSON.stringify(input));

/**
 * The run: hostile values first and last, around the first chunk boundary (padding with distinct malformed values
 * pushes them there), each with an exact copy and a respelled copy later in the list.
 */
function hostileRun(samples: Samples): unknown[] {
  const template = samples.malformed();
  const hostile = hostileTexts().map((text) => carrying(template, text));
  const padding = Array.from({ length: CHUNK_ENTRIES - 6 }, () => samples.malformed());
  const [head, boundary, tail] = [hostile.slice(0, 10), hostile.slice(10, 20), hostile.slice(20)];
  const copies = hostile.flatMap((value) => [value, samples.respell(value)]);
  return [...head, ...padding, ...boundary, ...copies, ...tail];
}

const csvOf = (product: Product, id: number, variant?: string) =>
  new Response(resultsStream(env, id, product, variant)).text();

/** Strict RFC 4180: quotes only around whole cells, every record as wide as the header, nothing relaxed. */
const records = (text: string): string[][] =>
  parse(text, { relax_quotes: false, relax_column_count: false, skip_empty_lines: false, bom: false }) as string[][];

describe.each(SUBJECTS)("results CSV with hostile cells: $label", ({ product, samples }) => {
  it(
    "returns every input row exactly once, whole and in order, with formulas neutralised, under strict RFC " + "4180",
    async () => {
      const acct = await funded(1_000);
      const inputs = hostileRun(samples);
      const queue = capturedQueue();
      const { row } = await createJob(queue.env, product, {
        accountId: acct.accountId,
        keyId: acct.keyId,
        inputs,
        options: {},
        webhookUrl: null,
        idempotencyKey: null,
      });
      await runJob(queue.env, row.id, lookupWith(product));
      const job = (await jobView((await jobById(database(env), row.id))!)) as Record<string, unknown>;
      expect(job).toMatchObject({ status: "completed", total: inputs.length, processed: inputs.length });
      expect(job.duplicate_count as number).toBeGreaterThan(0);

      const [header, ...rows] = records(await csvOf(product, row.id));
      expect(header).toEqual(csvHeader(product));
      expect(rows.map((cells) => Number(cells[0]))).toEqual(inputs.map((_, i) => i));
      expect(rows.map((cells) => cells[1])).toEqual(inputs.map(cellOf));
      for (const cells of rows)
        for (const cell of cells)
          expect(TRIGGER.test(cell) && !/^[+-]\d+(\.\d+)?$/.test(cell), JSON.stringify(cell)).toBe(false);

      for (const counter of product.bulk!.counters) {
        const [variantHeader, ...variantRows] = records(await csvOf(product, row.id, counter));
        expect(variantHeader).toEqual(csvHeader(product));
        expect(variantRows.length, counter).toBe(job[counter]);
      }
    },
  );
});
