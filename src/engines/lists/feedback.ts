import { and, count, desc, eq, gte, lt, ne, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { database, type Database } from "../../db/client";
import { feedback } from "../../db/schema";
import { chunks } from "../../db/chunks";
import type { Product } from "../product";
import type { FeedbackEvent } from "./feedback-shape";
import { suppressStatements } from "./suppressions";

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

/** 9 parameters a row: 11 rows a statement stays under D1's 100. */
function insertStatements(
  db: Database,
  accountId: string,
  product: string,
  source: string,
  rows: FeedbackRow[],
  now: number,
): BatchItem<"sqlite">[] {
  return chunks(rows, 11).map((part) =>
    db.insert(feedback).values(part.map((r) => ({ accountId, product, source, ...r, createdAt: now }))),
  );
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
 * says so, all in one D1 batch. `source` is `api` for posted outcomes, else the sender's name.
 */
export async function receiveFeedback<In, Out>(
  env: Env,
  product: Product<In, Out>,
  accountId: string,
  source: string,
  events: FeedbackEvent<In>[],
  ignored: number,
  now: number,
): Promise<Received> {
  const shape = product.feedback!;
  const db = database(env);
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
  const statements = [
    ...insertStatements(db, accountId, product.name, source, rows, now),
    ...suppressStatements(db, accountId, product.name, [...suppress.values()], "feedback", now, product.keys?.version),
  ];
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
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
  product: Product,
  accountId: string,
  since: number,
  until: number,
): Promise<FeedbackSummary> {
  const shape = product.feedback!;
  const window = and(
    eq(feedback.accountId, accountId),
    eq(feedback.product, product.name),
    gte(feedback.createdAt, since),
    lt(feedback.createdAt, until),
  );
  const counted = and(window, ne(feedback.outcome, IGNORED));
  const topFacets = db
    .select({ facet: feedback.facet })
    .from(feedback)
    .where(counted)
    .groupBy(feedback.facet)
    .orderBy(desc(count()), feedback.facet)
    .limit(FACETS_SHOWN);
  const [byOutcome, byFacet, [skipped]] = await Promise.all([
    db
      .select({ outcome: feedback.outcome, kind: feedback.kind, n: count() })
      .from(feedback)
      .where(counted)
      .groupBy(feedback.outcome, feedback.kind),
    db
      .select({ facet: feedback.facet, outcome: feedback.outcome, n: count() })
      .from(feedback)
      .where(and(counted, sql`${feedback.facet} IN (${topFacets})`))
      .groupBy(feedback.facet, feedback.outcome),
    db
      .select({ n: sql<number>`coalesce(sum(json_extract(${feedback.detail}, '$.count')), 0)` })
      .from(feedback)
      .where(and(window, eq(feedback.outcome, IGNORED))),
  ]);
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
    ignored: Number(skipped?.n ?? 0),
  };
}

/** The latest outcome recorded for a key, and when (Unix ms). */
export interface LatestFeedback {
  outcome: string;
  kind: string | null;
  at: number;
}

/**
 * For a product that reads feedback into its answers (IP) rather than suppressing: the statement selecting each key's
 * outcomes recorded since `since`, newest first, to run in the product's own D1 batch; `latestByKey` reads its rows.
 * The `feedback_key` index (account, product, key) serves it.
 */
export function latestFeedbackStatement(
  d1: D1Database,
  accountId: string,
  product: string,
  keys: string[],
  since: number,
): D1PreparedStatement {
  return d1
    .prepare(
      `SELECT key, outcome, kind, created_at AS at FROM feedback
       WHERE account_id = ?1 AND product = ?2 AND key IN (SELECT value FROM json_each(?3)) AND outcome != ?4
         AND created_at >= ?5
       ORDER BY created_at DESC, id DESC`,
    )
    .bind(accountId, product, JSON.stringify([...new Set(keys)]), IGNORED, since);
}

export function latestByKey(rows: ({ key: string } & LatestFeedback)[]): Map<string, LatestFeedback> {
  const latest = new Map<string, LatestFeedback>();
  for (const { key, outcome, kind, at } of rows) if (!latest.has(key)) latest.set(key, { outcome, kind, at });
  return latest;
}
