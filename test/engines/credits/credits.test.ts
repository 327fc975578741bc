import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, createAccount, accountObject } from "../../helpers";

const DAY = 86_400_000;
const at = (iso: string) => Date.parse(iso);

async function freshAccount(plan: "free" | "starter" | "enterprise", pack = 0) {
  const acct = await createAccount({ plan, pack });
  return { ...acct, credits: accountObject(acct.accountId) };
}

describe("account credits", () => {
  it("gives a new free account the monthly grant of 100 plan credits, recorded in the ledger", async () => {
    const { credits } = await freshAccount("free");
    const snapshot = await credits.snapshot();
    expect(snapshot).toMatchObject({ plan: "free", plan_credits: 100, pack_credits: 0, available: 100 });
    const { rows } = await credits.ledger(1, 100);
    expect(rows.map((r) => [r.kind, r.plan_delta])).toEqual([["monthly_grant", 100]]);
  });

  it("spends plan credits before pack credits", async () => {
    const { credits } = await freshAccount("free", 5);
    const held = await credits.reserve({ requestId: "req_a", amount: 1 });
    if (!held.ok) throw new Error("reserve failed");
    await credits.settle(held.reservationId, { credits: 1 });
    expect(await credits.snapshot()).toMatchObject({ plan_credits: 99, pack_credits: 5 });
    const big = await credits.reserve({ requestId: "req_b", amount: 102 });
    if (!big.ok) throw new Error("reserve failed");
    const settled = await credits.settle(big.reservationId, { credits: 102 });
    expect(settled).toMatchObject({ charged: 102, remaining: 2 });
    expect(await credits.snapshot()).toMatchObject({ plan_credits: 0, pack_credits: 2 });
    const charge = (await credits.ledger(1, 1)).rows[0]!;
    expect(charge).toMatchObject({ kind: "charge", request_id: "req_b", plan_delta: -99, pack_delta: -3 });
  });

  it("never goes negative: a reservation larger than the balance is refused", async () => {
    const { credits } = await freshAccount("enterprise", 3);
    expect(await credits.reserve({ requestId: "r", amount: 4 })).toMatchObject({
      ok: false,
      reason: "insufficient_credits",
    });
    expect(await credits.reserve({ requestId: "r", amount: 4, minimum: 1 })).toMatchObject({ ok: true, granted: 3 });
    expect(await credits.reserve({ requestId: "r2", amount: 1 })).toMatchObject({
      ok: false,
      reason: "insufficient_credits",
    });
  });

  it(
    "charges a settled reservation once, however often it is settled (a retry answers the first settlement again), " +
      "and releases on failure",
    async () => {
      const { credits } = await freshAccount("enterprise", 10);
      const held = await credits.reserve({ requestId: "req_x", amount: 2 });
      if (!held.ok) throw new Error("reserve failed");
      expect(await credits.settle(held.reservationId, { credits: 1 })).toMatchObject({ charged: 1, remaining: 9 });
      expect(await credits.settle(held.reservationId, { credits: 1 })).toMatchObject({
        charged: 1,
        credits: [1],
        remaining: 9,
        alreadySettled: true,
      });
      const other = await credits.reserve({ requestId: "req_y", amount: 5 });
      if (!other.ok) throw new Error("reserve failed");
      expect((await credits.snapshot()).available).toBe(4);
      await credits.release(other.reservationId);
      expect(await credits.snapshot()).toMatchObject({ available: 9, reserved: 0, pack_credits: 9 });
      expect((await credits.ledger(1, 100)).rows.filter((r) => r.kind === "charge")).toHaveLength(1);
    },
  );

  it("charges exactly 10 of 50 concurrent paid requests at an account holding 10 credits", async () => {
    const { credits } = await freshAccount("enterprise", 10);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const held = await credits.reserve({ requestId: `req_${i}`, amount: 1 });
        if (!held.ok) return held.reason;
        const { charged } = await credits.settle(held.reservationId, { credits: 1 });
        return charged === 1 ? "charged" : "not charged";
      }),
    );
    expect(outcomes.filter((o) => o === "charged")).toHaveLength(10);
    expect(outcomes.filter((o) => o === "insufficient_credits")).toHaveLength(40);
    expect(await credits.snapshot()).toMatchObject({ pack_credits: 0, available: 0, reserved: 0 });
    const charges = (await credits.ledger(1, 100)).rows.filter((r) => r.kind === "charge");
    expect(new Set(charges.map((r) => r.request_id)).size).toBe(10);
  });

  it("enforces a key's daily credit cap against spent plus held credits, resetting at 00:00 UTC", async () => {
    const { credits } = await freshAccount("enterprise", 100);
    const day1 = at("2026-11-22T10:00:00Z");
    const cap = { keyId: "key_capped", dailyCreditCap: 3 };
    const first = await credits.reserve({ requestId: "a", amount: 2, now: day1, ...cap });
    if (!first.ok) throw new Error("reserve failed");
    expect(await credits.reserve({ requestId: "b", amount: 2, now: day1, ...cap })).toMatchObject({
      ok: false,
      reason: "key_spend_cap",
    });
    const partial = await credits.reserve({ requestId: "b", amount: 2, minimum: 1, now: day1, ...cap });
    expect(partial).toMatchObject({ ok: true, granted: 1 });
    await credits.settle(first.reservationId, { credits: 2, now: day1 });
    if (partial.ok) await credits.release(partial.reservationId);
    expect(await credits.reserve({ requestId: "b2", amount: 2, minimum: 1, now: day1, ...cap })).toMatchObject({
      ok: true,
      granted: 1,
    });
    const nextDay = at("2026-11-23T00:00:00Z");
    // The day rolled over: only the still-held reservation of 1 counts against the new day's cap.
    expect(await credits.reserve({ requestId: "c", amount: 3, minimum: 1, now: nextDay, ...cap })).toMatchObject({
      ok: true,
      granted: 2,
    });
    // Another key of the same account is not limited by this key's cap.
    expect(
      await credits.reserve({ requestId: "d", amount: 5, now: day1, keyId: "key_other", dailyCreditCap: null }),
    ).toMatchObject({ ok: true });
  });

  it("adds a monthly grant each calendar month and rolls plan credits over up to three months' allowance", async () => {
    const { credits } = await freshAccount("free");
    const now = Date.now();
    const month = (n: number) => {
      const d = new Date(now);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 2);
    };
    expect((await credits.snapshot(month(1))).plan_credits).toBe(200);
    expect((await credits.snapshot(month(2))).plan_credits).toBe(300);
    expect((await credits.snapshot(month(3))).plan_credits).toBe(300);
    expect((await credits.snapshot(month(3))).plan_credits).toBe(300);
  });

  it(
    "keeps plan credits usable for 60 days after cancelling, then expires them; pack credits never " + "expire",
    async () => {
      const { credits } = await freshAccount("free", 7);
      const cancelledAt = Date.now();
      await credits.setPlan("cancelled", cancelledAt);
      expect(await credits.snapshot(cancelledAt + 59 * DAY)).toMatchObject({ plan_credits: 100, pack_credits: 7 });
      const expired = await credits.snapshot(cancelledAt + 61 * DAY);
      expect(expired).toMatchObject({
        plan_credits: 0,
        pack_credits: 7,
        plan_status: "cancelled",
        next_grant_at: null,
      });
      expect((await credits.ledger(1, 1)).rows[0]).toMatchObject({ kind: "expiry", plan_delta: -100, pack_delta: 0 });
    },
  );

  it("keeps rolling 30-day fair-use counters", async () => {
    const { credits } = await freshAccount("enterprise", 50);
    const now = Date.now();
    for (const usage of [{ billed_answers: 3 }, { undeliverable_checked: 2 }]) {
      const held = await credits.reserve({ requestId: "f", amount: 1, now });
      if (!held.ok) throw new Error("reserve failed");
      await credits.settle(held.reservationId, { credits: 0, usage, now });
    }
    expect((await credits.snapshot(now)).fair_use).toEqual({
      billed_answers: 3,
      undeliverable_checked: 2,
      free_undeliverable_limit: 500,
      free_undeliverable_remaining: 498,
    });
    expect((await credits.snapshot(now + 31 * DAY)).fair_use.billed_answers).toBe(0);
  });

  it("releases a reservation its Worker never settled when the alarm fires", async () => {
    const { credits } = await freshAccount("enterprise", 5);
    const held = await credits.reserve({ requestId: "lost", amount: 5 });
    expect(held.ok).toBe(true);
    await runInDurableObject(credits, (_instance, state) => {
      state.storage.sql.exec("UPDATE reservations SET created_at = created_at - 16 * 60 * 1000");
    });
    expect(await runDurableObjectAlarm(credits)).toBe(true);
    expect(await credits.snapshot()).toMatchObject({ available: 5, reserved: 0 });
  });

  it("records operator credits in the ledger with the request id", async () => {
    const acct = await createAccount({ plan: "enterprise" });
    await admin("POST", `/accounts/${acct.accountId}/credits`, { bucket: "plan", amount: 25, note: "goodwill" });
    const row = (await accountObject(acct.accountId).ledger(1, 1)).rows[0]!;
    expect(row).toMatchObject({ kind: "plan_credit", plan_delta: 25, note: "goodwill" });
    expect(row.request_id).toMatch(/^req_/);
  });
});
