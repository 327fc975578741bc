import { and, count, eq, lte } from "drizzle-orm";
import { database } from "../../db/client";
import { monitors } from "../../db/schema";
import { hitLimit, LIMITS } from "../../limits/limiter";

/**
 * What one account can make the service store through monitors (docs/api-decisions.md, "Monitors: what an account
 * can make the service store"): monitors of all products together, runs asked by hand a day (scheduled runs are
 * bounded by the monitors and their weekly or monthly cadence), and how long a run's webhook body is kept once its
 * delivery settled (webhooks/retention.ts).
 */
export const MONITOR_BOUNDS = {
  monitorsPerAccount: 100,
  runsPerDay: LIMITS.monitorRunsAccount.limit,
  settledBodyMs: 3_600_000,
} as const;

/** The refusal of a monitor over the account's maximum, as every surface answers it (409). */
export const MONITOR_LIMIT = {
  code: "MONITOR_LIMIT_REACHED",
  message:
    `An account has at most ${MONITOR_BOUNDS.monitorsPerAccount} monitors (all products together); ` +
    "delete one first.",
} as const;

/** The account's monitors, every product; with `upTo`, only those created up to that one (ids only grow). */
export async function accountMonitorCount(env: Env, accountId: string, upTo?: number): Promise<number> {
  const mine = eq(monitors.accountId, accountId);
  const [row] = await database(env)
    .select({ n: count() })
    .from(monitors)
    .where(upTo === undefined ? mine : and(mine, lte(monitors.id, upTo)));
  return row?.n ?? 0;
}

/**
 * Counts one run asked by hand (the API's and the tool protocol's run, the dashboard's Run button) against the
 * account's daily budget: null within it, else the RATE_LIMITED refusal with when to ask again. Nothing runs or is
 * charged when refused.
 */
export async function manualRunRefusal(env: Env, accountId: string) {
  const hit = await hitLimit(env, "monitorRunsAccount", accountId);
  if (hit.allowed) return null;
  return {
    code: "RATE_LIMITED" as const,
    message: LIMITS.monitorRunsAccount.message,
    retryAfterSeconds: hit.retryAfterSeconds,
  };
}
