/**
 * An HTTP lookup settles after its answer (src/engines/walk/walk.ts): the settlement, its repeat marker, history and
 * suppressions land in one call to the account's object once the response is decided. Nothing is lost if they land,
 * and nothing is charged if they never do (the isolate died after the answer): the reservation's alarm releases the
 * hold, its claims end, and the next identical lookup is answered fresh and charged once.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { walk } from "../../../src/engines/walk/walk";
import { email } from "../../../src/products/email/product";
import { accountRows, createAccount, creditsStub, lookupEmail } from "../../helpers";
import { ledgerCharges, OPTIONS } from "../../contract/helpers";

/** Polls `read` until `done` holds (the deferred settlement lands just after the response). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const count = async (accountId: string, table: string) =>
  (await accountRows<{ n: number }>(accountId, `SELECT COUNT(*) AS n FROM ${table}`))[0]!.n;

describe("settling after the answer", () => {
  it("lands the charge, the repeat marker, history and the suppression right after the answer", async () => {
    const acct = await createAccount({ pack: 5 });
    const { status, body, response } = await lookupEmail(acct.key, { email: "alice@acme.example" });
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ credits_used: 1, credits_remaining: 4 });
    const requestId = response.headers.get("X-Request-Id")!;
    const charged = await eventually(
      () => ledgerCharges(acct.accountId, (id) => id === requestId),
      (c) => c.rows === 1,
    );
    expect(charged).toEqual({ rows: 1, credits: 1 });
    expect(await creditsStub(acct.accountId).snapshot()).toMatchObject({ pack_credits: 4, reserved: 0 });
    expect(await accountRows(acct.accountId, "SELECT key FROM repeats")).toEqual([{ key: "alice@acme.example" }]);
    expect(await accountRows(acct.accountId, "SELECT request_id, credits_used FROM history")).toEqual([
      { request_id: requestId, credits_used: 1 },
    ]);
    // An undeliverable verdict (free within fair use) joins the suppression list the same way.
    const gone = await lookupEmail(acct.key, { email: "gone@acme.example" });
    expect(gone.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 4 });
    const listed = await eventually(
      () => accountRows(acct.accountId, "SELECT key, source FROM suppressions"),
      (rows) => rows.length > 0,
    );
    expect(listed).toEqual([{ key: "gone@acme.example", source: "verdict" }]);
    expect(await count(acct.accountId, "history")).toBe(2);
  });

  it("charges nothing when the settlement never arrives: the alarm releases the hold and the claim", async () => {
    const acct = await createAccount({ pack: 5 });
    const payer = { accountId: acct.accountId, keyId: acct.keyId, dailyCreditCap: null };
    // The isolate dies after the answer: the deferred settlement is handed over and dropped.
    const run = await walk(email, {
      env,
      payer,
      requestId: "req_killed",
      inputs: ["alice@acme.example"],
      options: OPTIONS,
      defer: () => {},
    });
    expect(run.items[0]!.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    expect(run.creditsRemaining).toBe(4);
    const stub = creditsStub(acct.accountId);
    expect(await stub.snapshot()).toMatchObject({ pack_credits: 5, reserved: 1 });
    expect(await accountRows(acct.accountId, "SELECT key FROM claims")).toEqual([{ key: "alice@acme.example" }]);
    // Past the reservation's time to live, its alarm runs.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE reservations SET created_at = created_at - 16 * 60 * 1000");
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.snapshot()).toMatchObject({ pack_credits: 5, reserved: 0, available: 5 });
    expect(await ledgerCharges(acct.accountId, () => true)).toEqual({ rows: 0, credits: 0 });
    expect(await count(acct.accountId, "claims")).toBe(0);
    expect(await count(acct.accountId, "repeats")).toBe(0);
    // The next identical lookup is answered fresh and charged once.
    const next = await lookupEmail(acct.key, { email: "alice@acme.example" });
    expect(next.body.meta).toMatchObject({ credits_used: 1, cache_hit: false, credits_remaining: 4 });
    const settled = await eventually(
      () => ledgerCharges(acct.accountId, () => true),
      (c) => c.rows === 1,
    );
    expect(settled).toEqual({ rows: 1, credits: 1 });
    expect(await stub.snapshot()).toMatchObject({ pack_credits: 4, reserved: 0 });
  });
});
