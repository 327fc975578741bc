import { z } from "zod";
import { COVERAGE_KINDS, type CoverageKind } from "../db/coverage";

/**
 * The coverage an answer's source had: a dataset's kind, or `none` for a live source (DNS over HTTPS, RDAP, the
 * mailbox check, a partner) that was asked and gave no answer, so a failed check is never cited as a full one.
 */
export const SOURCE_COVERAGES = [...COVERAGE_KINDS, "none"] as const;

export type SourceCoverage = (typeof SOURCE_COVERAGES)[number];

/**
 * One entry of an answer's `sources` (products.md, "Coverage on answers"): a dataset consulted for the answer, the
 * version it had, and the coverage kind it had when it answered, so a row of a synthetic sample or of part of a file is
 * never read as a complete register's word.
 */
export interface Source {
  dataset: string;
  version: string;
  coverage: SourceCoverage;
  /** False on a dataset consulted that decided no field of the answer (a sample or partial file without the value). */
  decided?: false;
}

/**
 * The sources the engines answer from themselves, which every product with suppressions or feedback cites and lists
 * in its `datasets`: the account's suppression list and its delivery feedback (src/engines/lists/).
 */
export const SUPPRESSION_LIST = "suppression-list";
export const DELIVERY_FEEDBACK = "delivery-feedback";

/**
 * A source that is whole by what it is: a bundled snapshot of a complete list, a live check (DNS, RDAP, a mailbox
 * handshake), a partner's answer, the account's own lists and feedback, a documented table of test values.
 */
export const whole = (dataset: string, version: string): Source => ({ dataset, version, coverage: "full" });

/** An installed dataset's entry: its coverage as recorded with its `datasets` row. */
/**
 * A live source's entry (DNS over HTTPS, RDAP, the mailbox check, a partner): `full` when it answered, `none` when it
 * was asked and gave no answer. Under `npm run dev -- --offline` the live sources are the stand-ins of
 * test/fixtures/offline-internet.ts (the `LIVE_STAND_INS` var names them): an answer of theirs is a sample's,
 * `coverage: "sample"`, its version the stand-ins' label before the check's own (`offline-stand-in/2026-11-29`).
 */
export function liveSource(o: { dataset: string; version: string; answered: boolean; standIn?: string }): LiveSource {
  if (!o.answered) return { dataset: o.dataset, version: o.version, coverage: "none" };
  if (o.standIn) return { dataset: o.dataset, version: `${o.standIn}/${o.version}`, coverage: "sample" };
  return { dataset: o.dataset, version: o.version, coverage: "full" };
}

/** A live source's entry: never `partial` (it answers for what it was asked, or not at all). */
export type LiveSource = Source & { coverage: Exclude<SourceCoverage, "partial"> };

/** The offline stand-ins' label when the Worker runs against them (`npm run dev -- --offline`), else undefined. */
export const standInLabel = (env: { LIVE_STAND_INS?: string }): string | undefined => env.LIVE_STAND_INS || undefined;

export const installedSource = (dataset: string, installed: { version: string; coverage: { kind: CoverageKind } }) => ({
  dataset,
  version: installed.version,
  coverage: installed.coverage.kind,
});

export const sourceSchema = z.object({
  dataset: z.string(),
  version: z.string(),
  coverage: z
    .enum(SOURCE_COVERAGES)
    .describe(
      "The coverage the dataset had when it answered: `full` (the publisher's complete file; live checks, partners " +
        "and the account's own lists are `full`), `partial` (part of it), `sample` (synthetic rows standing in " +
        "for a register, as `npm run dev` loads them, or a stand-in of `npm run dev -- --offline` for a live check) " +
        "or `none` (a live check or partner that was asked and gave no answer: nothing of the answer comes from it).",
    ),
  decided: z
    .literal(false)
    .optional()
    .describe(
      "Present (`false`) on a dataset that was consulted but decided no field of the answer: a sample or part of a " +
        "file that does not hold the value says nothing about it. Absent on every source that decided something.",
    ),
});

export const sourcesSchema = z.array(sourceSchema);
