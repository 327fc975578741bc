/**
 * An HTTP lookup settles after its answer (src/engines/walk/walk.ts): the settlement, its repeat marker, history and
 * suppressions land in one call to the account's object once the response is decided. Nothing is lost if they land,
 * and nothing is charged if they never do (the isolate died after the answer): the reservation's alarm releases the
 * hold, its claims end, and the next identical lookup is answered fresh and charged once.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { walk } from "../../../src/engines/walk/walk";
import { email } from "../../../src/products/email/product";
import { ip } from "../../../src/products/ip/product";
import type { IpResult } from "../../../src/products/ip/result";
import { accountRows, call, createAccount, accountObject, json, lookupEmail } from "../../helpers";
import { ledgerCharges, OPTIONS } from "../../contract/helpers";
import { installIpSamples, placedIps } from "../../ip-samples";

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
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 4, reserved: 0 });
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
    const stub = accountObject(acct.accountId);
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

/**
 * IP sells five placing lookups a credit. Its walk's one hold decides the outcome when it bought no credit or its
 * answers used every unit its credit kept (durable-objects/account/unit-outcome.ts): the answer reports it and the
 * settlement (`asAnswered`) follows the answer. Otherwise (an opener whose lookup placed nothing) it settles first.
 */
describe("settling an IP lookup after the answer", () => {
  beforeAll(installIpSamples);
  const lookupIp = (key: string, value: string) =>
    call<IpResult>("/api/v1/ip", json({ ip: value }, { Authorization: `Bearer ${key}` }));
  const prepaid = async (accountId: string) => (await accountObject(accountId).balance("ip")).prepaid;
  /** An address the country sample does not place (146.70.0.0/16 is in none of its rows): free. */
  const unplaced = () => `146.70.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
  /** Runs the reservation's alarm as if its time to live had passed. */
  async function expireHolds(accountId: string) {
    const stub = accountObject(accountId);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE reservations SET created_at = created_at - 16 * 60 * 1000");
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
  }

  it("lands the charge, the prepaid units, the repeat marker and history right after each answer", async () => {
    const acct = await createAccount({ pack: 5 });
    const [opener, user] = placedIps(2);
    const first = await lookupIp(acct.key, opener!);
    expect(first.body.meta).toMatchObject({ credits_used: 1, credits_remaining: 4, ip_lookups_prepaid: 4 });
    const firstId = first.response.headers.get("X-Request-Id")!;
    const charged = await eventually(
      () => ledgerCharges(acct.accountId, () => true),
      (c) => c.rows === 1,
    );
    expect(charged).toEqual({ rows: 1, credits: 1 });
    expect(await ledgerCharges(acct.accountId, (id) => id === firstId)).toEqual({ rows: 1, credits: 1 });
    expect(await prepaid(acct.accountId)).toBe(4);
    // A lookup paid by a prepaid unit: no credit, one unit fewer.
    const second = await lookupIp(acct.key, user!);
    expect(second.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 4, ip_lookups_prepaid: 3 });
    const secondId = second.response.headers.get("X-Request-Id")!;
    const history = await eventually(
      () => accountRows(acct.accountId, "SELECT request_id, credits_used FROM history ORDER BY id"),
      (rows) => rows.length === 2,
    );
    expect(history).toEqual([
      { request_id: firstId, credits_used: 1 },
      { request_id: secondId, credits_used: 0 },
    ]);
    expect(await prepaid(acct.accountId)).toBe(3);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 4, reserved: 0 });
    expect(await ledgerCharges(acct.accountId, () => true)).toEqual({ rows: 1, credits: 1 });
    const markers = await accountRows<{ key: string }>(acct.accountId, "SELECT key FROM repeats WHERE product = 'ip'");
    expect(markers.map((r) => r.key).sort()).toEqual([opener, user].sort());
  });

  it("charges nothing when the settlement never arrives: the alarm gives the units back, lent ones in", async () => {
    const acct = await createAccount({ pack: 5 });
    const payer = { accountId: acct.accountId, keyId: acct.keyId, dailyCreditCap: null };
    const dropped = (requestId: string, value: string) =>
      walk(ip, { env, payer, requestId, inputs: [value], options: OPTIONS, defer: () => {} });
    const [a, b, c] = placedIps(3);
    // A lookup that opens a credit (lending its other four units to the pool) and whose settlement is lost.
    const opened = await dropped("req_opener_killed", a!);
    expect([opened.items[0]!.meta.credits_used, opened.creditsUsed, opened.prepaid, opened.creditsRemaining]).toEqual([
      1, 1, 4, 4,
    ]);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 5, reserved: 1 });
    expect(await prepaid(acct.accountId)).toBe(4);
    await expireHolds(acct.accountId);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({
      pack_credits: 5,
      reserved: 0,
      available: 5,
    });
    expect(await prepaid(acct.accountId)).toBe(0);
    expect(await ledgerCharges(acct.accountId, () => true)).toEqual({ rows: 0, credits: 0 });
    expect(await count(acct.accountId, "claims")).toBe(0);
    expect(await count(acct.accountId, "repeats")).toBe(0);
    expect(await count(acct.accountId, "history")).toBe(0);
    // A credit bought and settled, then a lookup on one of its prepaid units whose settlement is lost.
    const paid = await lookupIp(acct.key, b!);
    expect(paid.body.meta).toMatchObject({ credits_used: 1, ip_lookups_prepaid: 4 });
    await eventually(
      () => ledgerCharges(acct.accountId, () => true),
      (charges) => charges.rows === 1,
    );
    const taker = await dropped("req_taker_killed", c!);
    expect([taker.items[0]!.meta.credits_used, taker.creditsUsed, taker.prepaid]).toEqual([0, 0, 3]);
    expect(await prepaid(acct.accountId)).toBe(3);
    await expireHolds(acct.accountId);
    expect(await prepaid(acct.accountId)).toBe(4);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 4, reserved: 0 });
    expect(await ledgerCharges(acct.accountId, () => true)).toEqual({ rows: 1, credits: 1 });
  });

  it("answers a batch that opens a credit before settling, and settles it after the answer", async () => {
    const acct = await createAccount({ pack: 5 });
    const payer = { accountId: acct.accountId, keyId: acct.keyId, dailyCreditCap: null };
    const later: (() => Promise<unknown>)[] = [];
    const run = await walk(ip, {
      env,
      payer,
      requestId: "req_batch_opener",
      inputs: placedIps(3),
      options: OPTIONS,
      defer: (work) => work && later.push(work),
    });
    // One hold of three units: one credit bought, two of its units lent to the pool, all three it kept used.
    expect([run.items.map((i) => i.meta.credits_used), run.creditsUsed, run.prepaid, run.creditsRemaining]).toEqual([
      [1, 0, 0],
      1,
      2,
      4,
    ]);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 5, reserved: 1 });
    await Promise.all(later.map((work) => work()));
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 4, reserved: 0 });
    expect(await ledgerCharges(acct.accountId, () => true)).toEqual({ rows: 1, credits: 1 });
    expect(await prepaid(acct.accountId)).toBe(2);
    expect(await accountRows(acct.accountId, "SELECT credits_used FROM history ORDER BY id")).toEqual([
      { credits_used: 1 },
      { credits_used: 0 },
      { credits_used: 0 },
    ]);
  });

  it("settles an opener that placed nothing before answering, exactly, while others used its lent units", async () => {
    const acct = await createAccount({ pack: 5 });
    const payer = { accountId: acct.accountId, keyId: acct.keyId, dailyCreditCap: null };
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // The opener's lookup waits until two lookups beside it have used two of the units it lent.
    const slow = { ...ip, lookup: async (...args: Parameters<typeof ip.lookup>) => (await gate, ip.lookup(...args)) };
    const later: (() => Promise<unknown>)[] = [];
    const run = (product: typeof ip, requestId: string, value: string) =>
      walk(product, {
        env,
        payer,
        requestId,
        inputs: [value],
        options: OPTIONS,
        defer: (work) => work && later.push(work),
      });
    const opener = run(slow, "req_unplaced_opener", unplaced());
    await eventually(
      async () => (await accountObject(acct.accountId).snapshot()).reserved,
      (reserved) => reserved === 1,
    );
    const beside = [];
    for (const value of placedIps(2)) beside.push(await run(ip, `req_beside_${beside.length}`, value));
    expect(beside.map((r) => [r.items[0]!.meta.credits_used, r.prepaid])).toEqual([
      [0, 3],
      [0, 2],
    ]);
    open();
    const answered = await opener;
    // Settled before its answer: the credit its lent units paid for is its own, though its answer used none of it.
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ reserved: 0 });
    expect([answered.items[0]!.meta.credits_used, answered.creditsUsed, answered.prepaid]).toEqual([0, 1, 3]);
    expect(await ledgerCharges(acct.accountId, (id) => id === "req_unplaced_opener")).toEqual({ rows: 1, credits: 1 });
    await Promise.all(later.map((work) => work()));
    expect(await ledgerCharges(acct.accountId, () => true)).toEqual({ rows: 1, credits: 1 });
    // Its credit's five units: two answered beside it, three left in the pool (its own unused one back).
    expect(await prepaid(acct.accountId)).toBe(3);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 4, reserved: 0 });
  });

  it("settles an opener whose lookup placed nothing alone before answering, and charges nothing", async () => {
    const acct = await createAccount({ pack: 5 });
    const { status, body, response } = await lookupIp(acct.key, unplaced());
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ credits_used: 0, credits_remaining: 5, ip_lookups_prepaid: 0 });
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 5, reserved: 0 });
    expect(await prepaid(acct.accountId)).toBe(0);
    const requestId = response.headers.get("X-Request-Id")!;
    const history = await eventually(
      () => accountRows(acct.accountId, "SELECT request_id, credits_used FROM history"),
      (rows) => rows.length === 1,
    );
    expect(history).toEqual([{ request_id: requestId, credits_used: 0 }]);
  });
});
