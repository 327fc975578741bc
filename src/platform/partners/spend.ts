import { and, eq, sql } from "drizzle-orm";
import { database } from "../../db/client";
import { partnerCeilings, partnerSpend } from "../../db/schema";

/** The default ceiling: PARTNER_DAILY_CALLS, 1,000 when unset. */
export const defaultCeiling = (env: Env) => {
  const n = Number(env.PARTNER_DAILY_CALLS);
  return env.PARTNER_DAILY_CALLS !== "" && Number.isInteger(n) && n >= 0 ? n : 1_000;
};

const today = (now: number) => new Date(now).toISOString().slice(0, 10);

/** The account's ceiling (its own, or the default) and the calls counted today. */
export async function partnerAllowance(env: Env, accountId: string, now = Date.now()) {
  const db = database(env);
  const [own, spent] = await Promise.all([
    db
      .select({ dailyCalls: partnerCeilings.dailyCalls })
      .from(partnerCeilings)
      .where(eq(partnerCeilings.accountId, accountId))
      .get(),
    db
      .select({ calls: partnerSpend.calls })
      .from(partnerSpend)
      .where(and(eq(partnerSpend.accountId, accountId), eq(partnerSpend.day, today(now))))
      .get(),
  ]);
  return {
    dailyCalls: own?.dailyCalls ?? defaultCeiling(env),
    own: own !== undefined,
    today: spent?.calls ?? 0,
    day: today(now),
  };
}

/** Sets (or with null, removes) the account's own ceiling. */
export async function setPartnerCeiling(env: Env, accountId: string, dailyCalls: number | null, now = Date.now()) {
  const db = database(env);
  if (dailyCalls === null) await db.delete(partnerCeilings).where(eq(partnerCeilings.accountId, accountId));
  else
    await db
      .insert(partnerCeilings)
      .values({ accountId, dailyCalls, updatedAt: now })
      .onConflictDoUpdate({ target: partnerCeilings.accountId, set: { dailyCalls, updatedAt: now } });
}

/**
 * Takes up to `wanted` calls from the account's ceiling for today and returns how many it may make. The count is
 * raised in one statement that cannot pass the ceiling, so concurrent lookups of one account never exceed it.
 */
export async function takeCalls(env: Env, accountId: string | null, wanted: number, now = Date.now()): Promise<number> {
  if (wanted <= 0) return 0;
  // Work nobody pays for never reaches a partner (the sandbox answers test values only).
  if (accountId === null) return 0;
  const db = database(env);
  const own = await db
    .select({ dailyCalls: partnerCeilings.dailyCalls })
    .from(partnerCeilings)
    .where(eq(partnerCeilings.accountId, accountId))
    .get();
  const ceiling = own?.dailyCalls ?? defaultCeiling(env);
  const day = today(now);
  // One D1 batch is one transaction: the count before and the raised count (never past the ceiling) are read together,
  // so what this call may make is their difference even with concurrent lookups of the same account.
  const [before, after] = await db.batch([
    db
      .select({ calls: partnerSpend.calls })
      .from(partnerSpend)
      .where(and(eq(partnerSpend.accountId, accountId), eq(partnerSpend.day, day))),
    db
      .insert(partnerSpend)
      .values({ accountId, day, calls: Math.min(wanted, ceiling) })
      .onConflictDoUpdate({
        target: [partnerSpend.accountId, partnerSpend.day],
        set: { calls: sql`max(${partnerSpend.calls}, min(${ceiling}, ${partnerSpend.calls} + ${wanted}))` },
      })
      .returning({ calls: partnerSpend.calls }),
  ]);
  return Math.max(0, (after[0]?.calls ?? 0) - (before[0]?.calls ?? 0));
}
