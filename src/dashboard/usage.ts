import type { LedgerRow } from "../../durable-objects/account-credits";
import { database } from "../db/client";
import { requestOfAccount, type RequestRecord } from "../db/request-log";
import { dailyAnswers, dailyRequests, type DailyFigure } from "../db/usage";
import { creditsStub } from "../engines/credits/credits";
import { productNames } from "../products/registry";

/** The usage page's window: today and the 29 UTC days before it. */
export const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;
/** Ledger rows per page, as `GET /account/ledger` pages them. */
export const LEDGER_PAGE = 100;

/** One chart's data: a row of numbers per product, one number per day of `days`. */
export type Series = Record<string, number[]>;

export interface Usage {
  /** Each day's start (UTC, ms), oldest first. */
  days: number[];
  products: string[];
  requests: Series;
  answers: Series;
  credits: Series;
}

/** Spreads daily figures over the window: every product has a number for every day (0 when nothing happened). */
function spread(
  rows: readonly DailyFigure[],
  days: readonly number[],
  products: readonly string[],
  pick: (row: DailyFigure) => number,
): Series {
  const series: Series = Object.fromEntries(products.map((p) => [p, days.map(() => 0)]));
  for (const row of rows) {
    const index = days.indexOf(Number(row.day));
    const line = series[row.product];
    if (index >= 0 && line) line[index] = line[index]! + Number(pick(row));
  }
  return series;
}

/**
 * Requests, answers and credits per UTC day and per product over the last 30 days. Requests and their credits come
 * from the request log (API calls and the dashboard's try-it lookups, which are API calls); answers from the history
 * of answered values (lookups, bulk rows, monitor runs).
 */
export async function usageOf(env: Env, accountId: string, now = Date.now()): Promise<Usage> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const days = Array.from({ length: USAGE_DAYS }, (_, i) => today - (USAGE_DAYS - 1 - i) * DAY_MS);
  const db = database(env);
  const [requests, answers] = await Promise.all([
    dailyRequests(db, accountId, days[0]!),
    dailyAnswers(db, accountId, days[0]!),
  ]);
  const products: string[] = productNames();
  return {
    days,
    products,
    requests: spread(requests, days, products, (r) => r.count),
    answers: spread(answers, days, products, (r) => r.count),
    credits: spread(requests, days, products, (r) => r.credits),
  };
}

/** A page of the account's ledger, newest first (the account's object keeps it). */
export const ledgerPage = (env: Env, accountId: string, page: number): Promise<{ rows: LedgerRow[]; total: number }> =>
  creditsStub(env, accountId).ledger(page, LEDGER_PAGE);

/** One request of the account by its id (another account's is not found). */
export const requestRecord = (env: Env, accountId: string, requestId: string): Promise<RequestRecord | undefined> =>
  requestOfAccount(database(env), accountId, requestId);
