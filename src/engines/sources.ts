import { z } from "zod";
import { COVERAGE_KINDS, type CoverageKind } from "../db/coverage";

/**
 * One entry of an answer's `sources` (products.md, "Coverage on answers"): a dataset that decided the answer, the
 * version it had, and the coverage kind it had when it answered, so a row of a synthetic sample or of part of a file is
 * never read as a complete register's word.
 */
export interface Source {
  dataset: string;
  version: string;
  coverage: CoverageKind;
}

/**
 * A source that is whole by what it is: a bundled snapshot of a complete list, a live check (DNS, RDAP, a mailbox
 * handshake), a partner's answer, the account's own lists and feedback, a documented table of test values.
 */
export const whole = (dataset: string, version: string): Source => ({ dataset, version, coverage: "full" });

/** An installed dataset's entry: its coverage as recorded with its `datasets` row. */
export const installedSource = (dataset: string, installed: { version: string; coverage: { kind: CoverageKind } }) => ({
  dataset,
  version: installed.version,
  coverage: installed.coverage.kind,
});

export const sourceSchema = z.object({
  dataset: z.string(),
  version: z.string(),
  coverage: z
    .enum(COVERAGE_KINDS)
    .describe(
      "The coverage the dataset had when it answered: `full` (the publisher's complete file; live checks, partners " +
        "and the account's own lists are `full`), `partial` (part of it) or `sample` (synthetic rows standing in " +
        "for a register, as `npm run dev` loads them).",
    ),
});

export const sourcesSchema = z.array(sourceSchema);
