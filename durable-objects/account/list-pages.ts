import type {
  FeedbackCountQuery,
  FeedbackCounts,
  HistoryPage,
  HistoryQuery,
  LatestFeedbackQuery,
  StoredFeedback,
  StoredHistory,
  StoredSuppression,
} from "./list-types";

/** The account's lists as the list routes and dashboard pages read them: pages, counts and day figures. */

const PER_PAGE = 100;

export function suppressionPage(
  sql: SqlStorage,
  product: string,
  page: number,
  key?: string,
): { rows: StoredSuppression[]; total: number } {
  const where = `product = ?${key === undefined ? "" : " AND key = ?"}`;
  const binds = key === undefined ? [product] : [product, key];
  const rows = sql
    .exec<SuppressionSql>(
      `SELECT * FROM suppressions WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
      ...binds,
      PER_PAGE,
      (page - 1) * PER_PAGE,
    )
    .toArray()
    .map(suppressionOf);
  const total = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM suppressions WHERE ${where}`, ...binds).one();
  return { rows, total: total.n };
}

export function historyPage(sql: SqlStorage, product: string, q: HistoryQuery): HistoryPage {
  const filters = ["product = ?"];
  const binds: (string | number)[] = [product];
  const add = (clause: string, value: string | number | undefined) => {
    if (value === undefined || value === "") return;
    filters.push(clause);
    binds.push(value);
  };
  add("created_at >= ?", q.since);
  add("created_at < ?", q.until);
  add("verdict = ?", q.verdict);
  add("key = ?", q.key);
  const where = filters.join(" AND ");
  const rows = sql
    .exec<HistorySql>(
      `SELECT * FROM history WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
      ...binds,
      PER_PAGE,
      (q.page - 1) * PER_PAGE,
    )
    .toArray()
    .map(
      (r): StoredHistory => ({
        id: r.id,
        product: r.product,
        requestId: r.request_id,
        value: r.value,
        key: r.key,
        verdict: r.verdict,
        reason: r.reason,
        creditsUsed: r.credits_used,
        cacheHit: r.cache_hit === 1,
        suppressed: r.suppressed === 1,
        createdAt: r.created_at,
      }),
    );
  const total = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM history WHERE ${where}`, ...binds).one();
  return { rows, total: total.n };
}

/** Answers per UTC day and product since `since`, with the credits they cost (the dashboard's usage page). */
export function dailyAnswers(sql: SqlStorage, since: number) {
  return sql
    .exec<{ day: number; product: string; count: number; credits: number }>(
      `SELECT (created_at / 86400000) * 86400000 AS day, product, COUNT(*) AS count,
        COALESCE(SUM(credits_used), 0) AS credits FROM history WHERE created_at >= ? GROUP BY day, product`,
      since,
    )
    .toArray();
}

/** Counts of a product's feedback in [since, until): by outcome and kind, by facet (the top `facets`), ignored. */
export function feedbackCounts(sql: SqlStorage, query: FeedbackCountQuery): FeedbackCounts {
  const { product, since, until, ignored, facets } = query;
  const window = "product = ? AND created_at >= ? AND created_at < ?";
  const counted = `${window} AND outcome != ?`;
  const binds = [product, since, until, ignored];
  const byOutcome = sql
    .exec<{ outcome: string; kind: string | null; n: number }>(
      `SELECT outcome, kind, COUNT(*) AS n FROM feedback WHERE ${counted} GROUP BY outcome, kind`,
      ...binds,
    )
    .toArray();
  const byFacet = sql
    .exec<{ facet: string | null; outcome: string; n: number }>(
      `SELECT facet, outcome, COUNT(*) AS n FROM feedback WHERE ${counted} AND facet IN (SELECT facet FROM feedback
        WHERE ${counted} GROUP BY facet ORDER BY COUNT(*) DESC, facet LIMIT ?) GROUP BY facet, outcome`,
      ...binds,
      ...binds,
      facets,
    )
    .toArray();
  const skipped = sql
    .exec<{ n: number }>(
      `SELECT COALESCE(SUM(json_extract(detail, '$.count')), 0) AS n FROM feedback WHERE ${window} AND outcome = ?`,
      ...binds,
    )
    .one();
  return { byOutcome, byFacet, ignored: Number(skipped.n) };
}

/** Each key's outcomes since `since`, newest first (a product that reads feedback into its answers: IP). */
export function latestFeedback(sql: SqlStorage, query: LatestFeedbackQuery): StoredFeedback[] {
  const { product, keys, since, ignored } = query;
  return sql
    .exec<StoredFeedback & Record<string, SqlStorageValue>>(
      `SELECT key, outcome, kind, created_at AS at FROM feedback WHERE product = ?
        AND key IN (SELECT value FROM json_each(?)) AND outcome != ? AND created_at >= ?
       ORDER BY created_at DESC, id DESC`,
      product,
      JSON.stringify([...new Set(keys)]),
      ignored,
      since,
    )
    .toArray();
}

export type SuppressionSql = {
  id: number;
  product: string;
  key: string;
  reason: string;
  source: StoredSuppression["source"];
  result: string | null;
  key_version: number;
  created_at: number;
};

type HistorySql = {
  id: number;
  product: string;
  request_id: string;
  value: string;
  key: string;
  verdict: string;
  reason: string | null;
  credits_used: number;
  cache_hit: number;
  suppressed: number;
  created_at: number;
};

export const suppressionOf = (r: SuppressionSql): StoredSuppression => ({
  id: r.id,
  product: r.product,
  key: r.key,
  reason: r.reason,
  source: r.source,
  result: r.result,
  keyVersion: r.key_version,
  createdAt: r.created_at,
});
