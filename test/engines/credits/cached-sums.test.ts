// The account's object keeps what its reservations hold and its fair-use sums in memory, moved by every write instead
// of summed again per call (bench:account-object's profile). Whatever the mix of holds, resizes, settles, retries and
// releases, what it answers must equal what its tables say, and what a fresh instance reads from them.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createAccount, accountObject } from "../../helpers";

/** What the tables say: the reservations' SUM and each fair-use counter's SUM inside the window. */
function fromTables(sql: SqlStorage) {
  const held = sql.exec<{ n: number }>("SELECT COALESCE(SUM(amount), 0) AS n FROM reservations").one().n;
  const counter = (name: string) =>
    sql.exec<{ n: number }>("SELECT COALESCE(SUM(n), 0) AS n FROM usage_hours WHERE counter = ?", name).one().n;
  return { held, billed: counter("billed_answers"), undeliverable: counter("undeliverable_checked") };
}

describe("the account object's cached sums", () => {
  it("agree with its tables after holds, a resize, settles, a retried settle and a release", async () => {
    const { accountId } = await createAccount({ plan: "enterprise", pack: 1_000 });
    const credits = accountObject(accountId);
    const { available: start } = await credits.snapshot();
    expect(await credits.snapshot()).toMatchObject({ reserved: 0, fair_use: { billed_answers: 0 } });
    const a = await credits.reserve({ requestId: "req_a", amount: 3 });
    const b = await credits.reserve({ requestId: "req_b", amount: 5, keyId: "key_b" });
    const c = await credits.reserve({ requestId: "req_c", amount: 2 });
    if (!a.ok || !b.ok || !c.ok) throw new Error("a hold was refused");
    expect(await credits.snapshot()).toMatchObject({ reserved: 10, available: start - 10 });
    // b's wave: 2 spent, 10 more asked for: the hold becomes 12.
    expect(await credits.resize(b.reservationId, { spent: 2, units: 10 })).toMatchObject({ ok: true, held: 12 });
    expect(await credits.snapshot()).toMatchObject({ reserved: 17, available: start - 17 });
    await credits.settle(a.reservationId, { credits: 2, usage: { billed_answers: 2, undeliverable_checked: 1 } });
    // A retried settle charges and counts nothing again.
    await credits.settle(a.reservationId, { credits: 2, usage: { billed_answers: 2, undeliverable_checked: 1 } });
    await credits.settle(b.reservationId, { credits: 7, usage: { billed_answers: 7 } });
    await credits.release(c.reservationId);
    const snapshot = await credits.snapshot();
    expect(snapshot).toMatchObject({
      reserved: 0,
      available: start - 9,
      fair_use: { billed_answers: 9, undeliverable_checked: 1 },
    });
    await runInDurableObject(credits, (_instance, state) => {
      expect(fromTables(state.storage.sql)).toEqual({ held: 0, billed: 9, undeliverable: 1 });
    });
    const open = await credits.reserve({ requestId: "req_d", amount: 4 });
    expect(open).toMatchObject({ ok: true, available: start - 13 });
    await runInDurableObject(credits, (_instance, state) => {
      expect(fromTables(state.storage.sql)).toMatchObject({ held: 4 });
    });
  });
});
