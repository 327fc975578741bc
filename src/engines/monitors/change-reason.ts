import { DELIVERY_FEEDBACK as FEEDBACK, SUPPRESSION_LIST } from "../sources";

/**
 * Why an entry of a monitor run changed (products.md, "Monitor changes"): read from what the two answers cite, since a
 * run keeps no other record of what moved. Null when the baseline predates this record (nothing to compare with).
 */
export const CHANGE_REASONS = ["recheck", "feedback", "suppressed", "dataset", "partner"] as const;
export type ChangeReason = (typeof CHANGE_REASONS)[number];

/** What a baseline keeps of its answer beside the observed fields: its sources and whether it was suppressed. */
export interface Provenance {
  sources: { dataset: string; version: string }[];
  suppressed: boolean;
}

/**
 * What the monitored product declares of the sources its answers cite (its `checked` and `partners`): a checked
 * source's version is the time of a check or of the account's own list, so its moving says a check ran again (a
 * recheck, not a dataset update); a partner's is the time it was asked.
 */
export interface SourceKinds {
  checked: ReadonlySet<string>;
  partners: ReadonlySet<string>;
}

/** The product's declared kinds, with the engines' own account sources (suppressions, feedback) as checks. */
export const sourceKindsOf = (product: { checked?: readonly string[]; partners?: readonly string[] }): SourceKinds => ({
  checked: new Set([...(product.checked ?? []), SUPPRESSION_LIST, FEEDBACK]),
  partners: new Set(product.partners ?? []),
});

const isSource = (s: unknown): s is Provenance["sources"][number] =>
  typeof s === "object" &&
  s !== null &&
  typeof (s as { dataset?: unknown }).dataset === "string" &&
  typeof (s as { version?: unknown }).version === "string";

/** The provenance of one answer: its `sources` (when it has any) and whether the walk answered it as suppressed. */
export function provenanceOf(answer: unknown, suppressed: boolean): Provenance {
  const cited = (answer as { sources?: unknown } | null)?.sources;
  const sources = Array.isArray(cited) ? cited.filter(isSource) : [];
  return { sources: sources.map(({ dataset, version }) => ({ dataset, version })), suppressed };
}

const versions = (p: Provenance) => new Map(p.sources.map((s) => [s.dataset, s.version]));

/** A dataset cited by both answers at different versions (live checks, the account's lists and partners aside). */
function datasetMoved(before: Provenance, now: Provenance, kinds: SourceKinds): boolean {
  const was = versions(before);
  const released = (dataset: string) => !kinds.checked.has(dataset) && !kinds.partners.has(dataset);
  return now.sources.some((s) => released(s.dataset) && was.has(s.dataset) && was.get(s.dataset) !== s.version);
}

/**
 * The reason of one changed entry, most direct cause first: the value is now suppressed; feedback recorded since the
 * baseline (a `delivery-feedback` source it did not cite at that version); a dataset released anew; a partner that
 * answered either time (its version is the time of its check, so a partner cited is a partner asked again); otherwise
 * a fresh check that answered differently.
 */
export function changeReason(before: Provenance | undefined, now: Provenance, kinds: SourceKinds): ChangeReason | null {
  if (now.suppressed) return "suppressed";
  if (!before) return null;
  const feedbackWas = versions(before).get(FEEDBACK);
  if (now.sources.some((s) => s.dataset === FEEDBACK && s.version !== feedbackWas)) return "feedback";
  if (datasetMoved(before, now, kinds)) return "dataset";
  if ([...before.sources, ...now.sources].some((s) => kinds.partners.has(s.dataset))) return "partner";
  return "recheck";
}

/** The key a baseline's provenance is kept under, beside the observed fields (never a field a product observes). */
export const PROVENANCE_KEY = "@provenance";

/** Splits a stored baseline into the observed fields the product compares and the provenance kept beside them. */
export function splitBaseline(stored: Record<string, unknown>): {
  answer: Record<string, unknown>;
  provenance: Provenance | undefined;
} {
  const { [PROVENANCE_KEY]: kept, ...answer } = stored;
  return { answer, provenance: kept ? (kept as Provenance) : undefined };
}
