/** Rows of the account's lists as its object answers them (durable-objects/account/lists.ts). */

/** A repeat marker or a suppression read by key: its stored answer and the key function version that keyed it. */
export interface StoredKeyed {
  key: string;
  keyVersion: number;
  /** The stored answer as JSON text (parsed by the Worker: an RPC answer carries no `unknown`). */
  result: string | null;
  /** When the repeat window started (0 for a suppression). */
  createdAt: number;
}

export interface SuppressionEntry {
  key: string;
  reason: string;
  result: unknown;
}

export interface StoredSuppression {
  id: number;
  product: string;
  key: string;
  reason: string;
  source: "verdict" | "manual" | "feedback";
  /** The stored answer as JSON text. */
  result: string | null;
  keyVersion: number;
  createdAt: number;
}

/** A history row as the object stores it: what the settlement wrote, with its id, product and time. */
export interface StoredHistory extends HistoryWrite {
  id: number;
  product: string;
  createdAt: number;
}

export interface HistoryQuery {
  page: number;
  since?: number | undefined;
  until?: number | undefined;
  verdict?: string | undefined;
  key?: string | undefined;
}

export interface HistoryPage {
  rows: StoredHistory[];
  total: number;
}

export interface HistoryWrite {
  requestId: string;
  value: string;
  key: string;
  verdict: string;
  reason: string | null;
  creditsUsed: number;
  cacheHit: boolean;
  suppressed: boolean;
}

export interface FeedbackWrite {
  key: string;
  facet: string | null;
  outcome: string;
  kind: string | null;
  detail: unknown;
  source: string;
}

/** Everything one walk or one feedback post writes to the account's lists, applied as one transaction. */
export interface ListsWrite {
  /** The key function version of the keys written (src/engines/rekey.ts); 0 when the product has none. */
  keyVersion?: number;
  repeats?: { key: string; result: unknown }[];
  suppress?: { entries: SuppressionEntry[]; source: "verdict" | "feedback" };
  /** Keys a single re-verify takes off the list (entries feedback put there stay). */
  unsuppress?: string[];
  history?: HistoryWrite[];
  feedback?: FeedbackWrite[];
}

/** A product's feedback counted in [since, until): outcome `ignored` counted apart, the top `facets` facets shown. */
export interface FeedbackCountQuery {
  product: string;
  since: number;
  until: number;
  ignored: string;
  facets: number;
}

/** Keys whose feedback of `product` since `since` is read, outcome `ignored` left out. */
export interface LatestFeedbackQuery {
  product: string;
  keys: string[];
  since: number;
  ignored: string;
}

export interface FeedbackCounts {
  byOutcome: { outcome: string; kind: string | null; n: number }[];
  byFacet: { facet: string | null; outcome: string; n: number }[];
  ignored: number;
}

/** What a walk's first call asks of the account's lists beside its hold (see the credits object's `begin`). */
export interface BeginRecall {
  product: string;
  keys: string[];
  /** The walk's time: a repeat window is read as of it. */
  at: number;
  want: {
    repeats: boolean;
    suppressions: boolean;
    staleBelow?: number;
    /**
     * The keys' feedback recorded since `since`, newest first (a product whose answers report it: IP), of `product`
     * and `keys` when they are another product's (consistency's IP signal), else of the recall's own.
     */
    feedback?: { since: number; ignored: string; product?: string; keys?: string[] };
  };
  /**
   * Which stored rows answer a value free, so the hold is not asked for it: a suppression row (when read), and a
   * repeat marker started at or after `repeatsAfter` (null: a repeat may cost, so it is held for).
   */
  free?: { repeatsAfter: number | null };
}

export interface StoredFeedback {
  key: string;
  outcome: string;
  kind: string | null;
  at: number;
}

/** Keys a stored row answers free: a suppression row, or a repeat marker started at or after `repeatsAfter`. */
export function answeredFree(
  rows: { repeats: StoredKeyed[]; suppressions: StoredKeyed[] },
  repeatsAfter: number | null,
): Set<string> {
  const free = new Set(rows.suppressions.filter((r) => r.result !== null).map((r) => r.key));
  if (repeatsAfter !== null) for (const r of rows.repeats) if (r.createdAt >= repeatsAfter) free.add(r.key);
  return free;
}
