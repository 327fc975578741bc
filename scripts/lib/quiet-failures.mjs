// workerd logs every failed outgoing fetch (a DNS-over-HTTPS or RDAP query on a machine without internet) as a red
// ERROR with a native stack, several per lookup, although the Worker handles the failure. `npm run dev` shows
// wrangler's output through this filter (scripts/lib/dev-output.mjs): those blocks are dropped from the terminal (the
// log file keeps them) and one quiet line says what is going on. Every other failure stays visible.

const OUTSIDE_FAILURE =
  /\[ERROR\].*(failed to lookup address information|Connection refused|Network connection lost|disconnected)/;

export const OUTSIDE_FAILURE_NOTICE =
  "[dev] an outside lookup (DNS over HTTPS, RDAP) failed: no internet here? Answers stay unverified and free; " +
  "`npm run dev -- --offline` serves sample domains. Further failures are not shown.";

/**
 * A line filter for one output stream (lines without ANSI colours): "notice" for the first outside-fetch failure
 * (show OUTSIDE_FAILURE_NOTICE instead), "drop" for the rest of that block and later ones, "pass" for anything else.
 */
export function outsideFailureFilter() {
  let skipping = false;
  let told = false;
  return (line) => {
    if (OUTSIDE_FAILURE.test(line)) {
      skipping = true;
      if (told) return "drop";
      told = true;
      return "notice";
    }
    if (skipping && (line.trim() === "" || line.trimStart().startsWith("stack:"))) return "drop";
    skipping = false;
    return "pass";
  };
}
