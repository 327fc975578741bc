/**
 * What a dataset covers: recorded with its `datasets` row by whatever installs it, listed by `GET /status/data`, and
 * read by answers before they say "no" (docs/architecture.md, "Coverage").
 *
 * - `full`: the publisher's complete file. `countries`, when given, are what that file is about. A value it does not
 *   hold (in one of those countries) is a confident negative: an unknown postcode, an unknown identifier, not a Tor
 *   exit.
 * - `partial`: part of what the publisher covers: some countries or regions (`countries`, `note`), or a file known to
 *   leave values out (OpenStreetMap's Postleitzahlen lack the Großkunden codes). What it holds is an answer; what it
 *   lacks is no answer either way.
 * - `sample`: a few named values (the synthetic samples `npm run dev` loads, test slices): as `partial`.
 *
 * How an importer sets it: every install call takes a `coverage` (`installDataset` here; the operator routes'
 * `complete` / `install` bodies, `coverageBody` below). The importer says `full` only when it loaded the publisher's
 * whole file, `partial` with the countries (and a `note` naming regions) when it loaded part of it, and `sample` for
 * sample files. Only `isExhaustive` decides whether a miss may be a negative, and only `isSample` whether an answer
 * came from synthetic rows (`sample_data`); answers never read `kind` directly.
 */
import { z } from "zod";

export const COVERAGE_KINDS = ["full", "partial", "sample"] as const;

export type CoverageKind = (typeof COVERAGE_KINDS)[number];

export interface Coverage {
  kind: CoverageKind;
  /** ISO 3166-1 alpha-2 codes, upper case, sorted. */
  countries?: string[];
  note?: string;
}

/** The `coverage` of an install request and of `/status/data` (the same shape). */
export const coverageBody = z.strictObject({
  kind: z.enum(COVERAGE_KINDS),
  countries: z
    .array(z.string().regex(/^[A-Z]{2}$/, "Two upper-case letters (ISO 3166-1 alpha-2)."))
    .min(1)
    .max(250)
    .optional(),
  note: z.string().min(1).max(300).optional(),
});

/** A row installed before coverage was recorded (migrations/0015_coverage.sql) is not trusted to be complete. */
export const UNRECORDED: Coverage = {
  kind: "partial",
  note: "Installed before coverage was recorded; re-import to record it.",
};

/** The stored column (JSON text) as a Coverage; null or unreadable reads as `UNRECORDED`. */
export function readCoverage(stored: string | null | undefined): Coverage {
  if (!stored) return UNRECORDED;
  try {
    const parsed = coverageBody.safeParse(JSON.parse(stored));
    return parsed.success ? normalizeCoverage(parsed.data) : UNRECORDED;
  } catch {
    return UNRECORDED;
  }
}

/** Countries sorted and deduplicated, empty fields dropped: what is stored and shown. */
export function normalizeCoverage(c: Coverage): Coverage {
  return {
    kind: c.kind,
    ...(c.countries?.length ? { countries: [...new Set(c.countries)].sort() } : {}),
    ...(c.note ? { note: c.note } : {}),
  };
}

export const storedCoverage = (c: Coverage) => JSON.stringify(normalizeCoverage(c));

/**
 * Whether the dataset holds every value there is (of `country`, when the value has one): only then may a value it
 * lacks be answered as a negative. A full file naming its countries is exhaustive for those alone.
 */
export function isExhaustive(c: Coverage, country?: string | null): boolean {
  if (c.kind !== "full") return false;
  if (!c.countries) return true;
  return country != null && c.countries.includes(country);
}

/** Whether the dataset is a synthetic sample: an answer it decided says so (`sample_data`), not a register's word. */
export const isSample = (c: Coverage | undefined): boolean => c?.kind === "sample";

/** A dataset's listing as an import or a refresh installs it: its version, record count, when, and what it covers. */
export interface Listing {
  version: string;
  records: number;
  now: number;
  coverage: Coverage;
}

/** A listing switched to with the generation of rows it reads (the generation being imported). */
export interface Activation extends Listing {
  generation: number;
}
