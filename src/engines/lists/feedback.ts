import type { Database } from "../../db/client";
import type { FeedbackProduct } from "../product";
import { listsOf } from "./account-lists";
import type { FeedbackEvent, LatestFeedback } from "./feedback-shape";

/**
 * Delivery feedback of every product: what happened when the account used a value it looked up (delivered, bounced,
 * complained, ...), posted by the account or by its sending provider. The product says which outcomes suppress a value
 * and what the suppressed answer is; this stores, suppresses and counts.
 */

/** Not an outcome: an inbound event of a type that says nothing about delivery, kept only as a count. */
export const IGNORED = "ignored";

/** One stored row: the value's key and facet, its outcome, and the sender's details. */
interface FeedbackRow {
  key: string;
  facet: string | null;
  outcome: string;
  kind: string | null;
  detail: unknown;
}

/** What recording a list of events did. */
export interface Received {
  recorded: number;
  suppressed: number;
  /** Positions of events whose value is malformed (not recorded). */
  invalid: number[];
}

/**
 * Records events (and `ignored` inbound events as a count) and puts values on the suppression list where the product
 * says so, all in one transaction of the account's object. `source` is `api` for posted outcomes, else the sender's
 * name.
 */
export async function receiveFeedback<In, Out>(
  env: Env,
  product: FeedbackProduct<In, Out>,
  received: { accountId: string; source: string; events: FeedbackEvent<In>[]; ignored: number; now: number },
): Promise<Received> {
  const { accountId, source, events, ignored, now } = received;
  const shape = product.feedback!;
  const rows: FeedbackRow[] = [];
  const suppress = new Map<string, { key: string; reason: string; result: unknown }>();
  const invalid: number[] = [];
  events.forEach((event, index) => {
    const read = shape.read(event.value);
    if (!read) return void invalid.push(index);
    const detail = {
      ...event.detail,
      ...(event.occurredAt === null ? {} : { occurred_at: new Date(event.occurredAt).toISOString() }),
    };
    rows.push({ key: read.key, facet: read.facet, outcome: event.outcome, kind: event.kind, detail });
    const suppressed = shape.suppresses?.(event, read.key);
    if (suppressed) suppress.set(read.key, { key: read.key, ...suppressed });
  });
  if (shape.facets && rows.length) {
    const facets = await shape.facets(
      env,
      rows.map((r) => r.key),
    );
    rows.forEach((row, i) => (row.facet = facets[i] ?? row.facet));
  }
  // One row per request, however many events it ignored.
  if (ignored > 0) rows.push({ key: "", facet: null, outcome: IGNORED, kind: null, detail: { count: ignored } });
  if (rows.length || suppress.size)
    await listsOf(env, accountId).writeLists(
      product.name,
      {
        keyVersion: product.keys?.version ?? 0,
        feedback: rows.map((row) => ({ ...row, source })),
        suppress: { entries: [...suppress.values()], source: "feedback" },
      },
      now,
    );
  return { recorded: rows.length - (ignored > 0 ? 1 : 0), suppressed: suppress.size, invalid };
}

/** One facet's counts: its total and one count per outcome. */
export type FacetCounts = { facet: string; total: number; counts: Record<string, number> };

/** Counts over a window: by outcome (and kind), by facet (the 100 largest), and inbound events ignored. */
export interface FeedbackSummary {
  total: number;
  outcomes: Record<string, number>;
  kinds: Record<string, Record<string, number>>;
  facets: FacetCounts[];
  ignored: number;
}

const FACETS_SHOWN = 100;

export async function feedbackSummary(
  db: Database,
  product: FeedbackProduct,
  period: { accountId: string; since: number; until: number },
): Promise<FeedbackSummary> {
  const { accountId, since, until } = period;
  const shape = product.feedback!;
  const { byOutcome, byFacet, ignored } = await listsOf(db, accountId).feedbackCounts({
    product: product.name,
    since,
    until,
    ignored: IGNORED,
    facets: FACETS_SHOWN,
  });
  const zero = () => Object.fromEntries(shape.outcomes.map((o) => [o, 0])) as Record<string, number>;
  const outcomes = zero();
  const kinds: Record<string, Record<string, number>> = Object.fromEntries(
    Object.entries(shape.kinds?.of ?? {}).map(([outcome, list]) => [
      outcome,
      Object.fromEntries((list ?? []).map((k) => [k, 0])),
    ]),
  );
  for (const row of byOutcome) {
    outcomes[row.outcome] = (outcomes[row.outcome] ?? 0) + row.n;
    if (row.kind && kinds[row.outcome]) kinds[row.outcome]![row.kind] = (kinds[row.outcome]![row.kind] ?? 0) + row.n;
  }
  const facets = new Map<string, FacetCounts>();
  for (const row of byFacet) {
    const facet = row.facet ?? "";
    const entry = facets.get(facet) ?? { facet, total: 0, counts: zero() };
    entry.counts[row.outcome] = (entry.counts[row.outcome] ?? 0) + row.n;
    entry.total += row.n;
    facets.set(facet, entry);
  }
  const sorted = [...facets.values()].sort((a, b) => b.total - a.total || a.facet.localeCompare(b.facet));
  return {
    total: Object.values(outcomes).reduce((a, b) => a + b, 0),
    outcomes,
    kinds,
    facets: sorted,
    ignored,
  };
}

/**
 * For a product that reads feedback into its answers (IP) rather than suppressing: each key's outcomes recorded since
 * `since`, newest first, from the account's object; `latestByKey` keeps each key's latest.
 */
export function latestFeedback(env: Env, read: { accountId: string; product: string; keys: string[]; since: number }) {
  return listsOf(env, read.accountId).latestFeedback({
    product: read.product,
    keys: read.keys,
    since: read.since,
    ignored: IGNORED,
  });
}

export function latestByKey(rows: ({ key: string } & LatestFeedback)[]): Map<string, LatestFeedback> {
  const latest = new Map<string, LatestFeedback>();
  for (const { key, outcome, kind, at } of rows) if (!latest.has(key)) latest.set(key, { outcome, kind, at });
  return latest;
}
