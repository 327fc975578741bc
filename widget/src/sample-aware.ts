const SAMPLE_TEXT = "Checked against sample data only, not a real register.";

/**
 * A confirmation that a sample or a stand-in decided (a `sources` entry with `coverage: "sample"` that decided
 * something: not `decided: false`) is never shown as one: an `ok` view becomes a warning saying so. Samples that were
 * only consulted, and live sources without an answer (`none`), tint nothing (docs/widget.md).
 */
export function sampleAware<V extends { tone: "ok" | "warn" | "bad" | null; text: string }>(view: V, data: unknown): V {
  if (view.tone !== "ok") return view;
  const sources = (data as { sources?: { coverage?: string; decided?: boolean }[] }).sources ?? [];
  const decidedBySample = sources.some((s) => s.coverage === "sample" && s.decided !== false);
  return decidedBySample ? { ...view, tone: "warn", text: SAMPLE_TEXT } : view;
}
