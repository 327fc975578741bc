import type { LedgerRow } from "../../../durable-objects/account-object";
import { database } from "../../db/client";
import type { RequestRecord } from "../../db/request-log";
import { dailyRequests } from "../../db/usage";
import { accountObject } from "../../engines/credits/credits";
import { type RecordAsk, readRequestRecord } from "../../http/request-record";
import { productNames } from "../../products/registry";

/** The usage page's window: today and the 29 UTC days before it. */
export const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;
/** Ledger rows per page, as `GET /account/ledger` pages them. */
export const LEDGER_PAGE = 100;
/** The product of a charge the ledger recorded before it named products. */
export const UNKNOWN_PRODUCT = "unknown";

/** One chart's data: a row of numbers per product, one number per day of `days`. */
export type Series = Record<string, number[]>;

export interface Usage {
  /** Each day's start (UTC, ms), oldest first. */
  days: number[];
  /** The registered products, then `unknown` when the window holds charges of no named product. */
  products: string[];
  requests: Series;
  answers: Series;
  /** Credits that left the balance (the ledger's charge rows). */
  credits: Series;
}

/** A figure of one product on one day; a null product is a ledger row older than the ledger's product column. */
interface DayFigure {
  day: number;
  product: string | null;
}

/** Spreads daily figures over the window: every product has a number for every day (0 when nothing happened). */
function spread<Row extends DayFigure>(
  rows: readonly Row[],
  window: { days: readonly number[]; products: readonly string[] },
  pick: (row: Row) => number,
): Series {
  const series: Series = Object.fromEntries(window.products.map((p) => [p, window.days.map(() => 0)]));
  for (const row of rows) {
    const index = window.days.indexOf(Number(row.day));
    const line = series[row.product ?? UNKNOWN_PRODUCT];
    if (index >= 0 && line) line[index] = line[index]! + Number(pick(row));
  }
  return series;
}

/**
 * Requests, answers and credits per UTC day and per product over the last 30 days. Credits come from the account's
 * ledger (every charge: lookups, batches, bulk runs, monitor runs, partner checks) and answers from its history of
 * answered values, both in one call to the account's object; requests from the request log (API calls, try-it
 * lookups included).
 */
export async function usageOf(env: Env, accountId: string, now = Date.now()): Promise<Usage> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const days = Array.from({ length: USAGE_DAYS }, (_, i) => today - (USAGE_DAYS - 1 - i) * DAY_MS);
  const [requests, { charged, answered }] = await Promise.all([
    dailyRequests(database(env), accountId, days[0]!),
    accountObject(env, accountId).usage(days[0]!, now),
  ]);
  const registered: readonly string[] = productNames();
  // A charge of no product the registry names (an old row, a product since removed) counts as unknown, so the totals
  // still add up to the ledger's.
  const credits = charged.map((row) => (registered.includes(row.product ?? "") ? row : { ...row, product: null }));
  const unknown = credits.some((row) => row.product === null);
  const products = [...registered, ...(unknown ? [UNKNOWN_PRODUCT] : [])];
  const window = { days, products };
  return {
    days,
    products,
    requests: spread(requests, window, (r) => r.count),
    answers: spread(answered, window, (r) => r.count),
    credits: spread(credits, window, (r) => r.credits),
  };
}

/** A page of the account's ledger, newest first (the account's object keeps it). */
export const ledgerPage = (env: Env, accountId: string, page: number): Promise<{ rows: LedgerRow[]; total: number }> =>
  accountObject(env, accountId).ledger(page, LEDGER_PAGE);

/**
 * One request of the account by its id, as `GET /account/requests/{id}` reads it (another account's is not found; a
 * record on its way is waited for only when the id was signed for this session).
 */
export const requestRecord = (env: Env, ask: RecordAsk): Promise<RequestRecord | undefined> =>
  readRequestRecord(env, ask);

/** The ledger's rows written under one request or operation id (a purchase, a bulk chunk, a monitor run). */
export const ledgerMovements = (env: Env, accountId: string, requestId: string): Promise<LedgerRow[]> =>
  accountObject(env, accountId).movements(requestId);
