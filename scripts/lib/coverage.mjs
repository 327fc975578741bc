// The coverage an importer records with the dataset it installs (src/db/coverage.ts, docs/operations.md "Coverage"):
// what the operator says (--coverage full|partial|sample, --countries GB,JE, --coverage-note "..."), else a sample's
// for a `-sample` version, else the dataset's own default (what the publisher's whole file covers).

const KINDS = ["full", "partial", "sample"];

/** A sample file: a few named values, never a negative for anything else. */
export const sampleCoverage = (countries) => ({
  kind: "sample",
  ...(countries?.length ? { countries: [...countries] } : {}),
  note: "Synthetic sample rows shipped with the code, not the publisher's file.",
});

/** `given` (from the command line) wins; a `-sample` version is a sample; else `fallback`. */
export function coverageFor({ version, fallback, given, countries }) {
  if (given?.kind) {
    if (!KINDS.includes(given.kind))
      throw new Error(`--coverage must be one of ${KINDS.join(", ")}, got ${given.kind}`);
    return {
      kind: given.kind,
      ...(given.countries?.length ? { countries: given.countries } : {}),
      ...(given.note ? { note: given.note } : {}),
    };
  }
  if (version?.endsWith("-sample")) return sampleCoverage(countries);
  return fallback;
}

/** Reads the coverage options of an importer's command line into `options.coverage`; true when `arg` was one. */
export function coverageArg(options, arg, value) {
  if (arg === "--coverage") (options.coverage ??= {}).kind = value();
  else if (arg === "--countries")
    (options.coverage ??= {}).countries = value()
      .split(",")
      .map((c) => c.trim().toUpperCase())
      .filter(Boolean);
  else if (arg === "--coverage-note") (options.coverage ??= {}).note = value();
  else return false;
  return true;
}
