/** Words for a stop reason of a run (bulk or monitor), as the dashboard says it. */
export const STOP_WORDS: Record<string, string> = {
  insufficient_credits: "the account ran out of credits",
  key_spend_cap: "its key reached its daily credit cap",
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The fields every run summary has; whatever else it holds is the product's own tallies (`deliverable`, `found`). */
const FIXED = new Set(["checked", "changed", "new_baselines", "credits_used", "stopped_reason"]);

/**
 * A monitor run's summary (the API's `last_summary`) as sentences: "Checked 3 entries: 1 deliverable, 1 risky.
 * Nothing changed against the baselines; 3 first baselines recorded. No credits used." A stop says why.
 */
export function summarySentence(summary: Record<string, unknown> | null): string {
  if (!summary) return "Never run.";
  const n = (key: string) => Number(summary[key] ?? 0);
  const tallies = Object.entries(summary)
    .filter(([key, value]) => !FIXED.has(key) && typeof value === "number")
    .map(([key, value]) => `${value} ${key.replaceAll("_", " ")}`);
  const found = tallies.length ? `: ${tallies.join(", ")}` : "";
  const checked = `Checked ${plural(n("checked"), "entry", "entries")}${found}.`;
  const changed = n("changed")
    ? `${plural(n("changed"), "entry")} changed against ${n("changed") === 1 ? "its" : "their"} baseline.`
    : "Nothing changed against the baselines.";
  const baselines = n("new_baselines") ? ` ${plural(n("new_baselines"), "first baseline")} recorded.` : "";
  const credits = n("credits_used") ? `${plural(n("credits_used"), "credit")} used.` : "No credits used.";
  const reason = typeof summary.stopped_reason === "string" ? summary.stopped_reason : null;
  const stopped = reason ? ` Stopped early: ${STOP_WORDS[reason] ?? reason.replaceAll("_", " ")}.` : "";
  return `${checked} ${changed}${baselines} ${credits}${stopped}`;
}
