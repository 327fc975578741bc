/**
 * Our failure after a walk that settled BEFORE its answer (docs/billing.md, "A request that fails after settling"):
 * a batch whose walk set down a part before waiting on a concurrent walk's claim settles everything before answering;
 * its rendering then throws (FAILS_AFTER in the fixture's declarations). The request answers SERVER_ERROR and its
 * charges come back: credits, the key's daily spend, and the repeat markers it wrote.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { SpecimenResult } from "../../fixtures/products/specimen/result";
import { accountObject, BASE, call, createAccount, json, type TestAccount } from "../../helpers";
import { installRoots } from "./contract-samples";

beforeAll(installRoots);

const rand = () =>
  crypto
    .randomUUID()
    .replace(/[^a-z]/g, "")
    .slice(0, 8);
const keyed = (key: string) => ({ Authorization: `Bearer ${key}` });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const snapshot = (acct: TestAccount) => accountObject(acct.accountId).snapshot();

describe("a failure after a walk that settled before its answer is refunded", () => {
  it("POST /specimen/batch: 500 SERVER_ERROR; both charges, the key's spend and the marker come back", async () => {
    const acct = await createAccount({ pack: 5, key: { daily_credit_cap: 3 } });
    const [failing, held] = [`oak-${rand()}-fails-after`, `elm-${rand()}`];
    // A concurrent walk (no key) claims `held`: the batch answers `failing`, settles it, then waits on the claim.
    const blocker = await accountObject(acct.accountId).reserve({
      requestId: `req_blocker_${rand()}`,
      product: "specimen",
      amount: 1,
      minimum: 1,
      claims: { product: "specimen", items: [{ key: held, units: 1 }] },
    });
    if (!blocker.ok) throw new Error("the blocker's hold was refused");
    const request = SELF.fetch(`${BASE}/api/v1/specimen/batch`, json({ words: [failing, held] }, keyed(acct.key)));
    // The part before the wait is settled (charged) while the batch waits; then the claim ends with no answer.
    expect(
      (
        await until(
          () => snapshot(acct),
          (s) => s.pack_credits === 4,
        )
      ).pack_credits,
    ).toBe(4);
    await accountObject(acct.accountId).release(blocker.reservationId);
    const response = await request;
    const body = (await response.json()) as { success: boolean; error: { code: string; request_id: string } };
    expect([response.status, body.success, body.error.code]).toEqual([500, false, "SERVER_ERROR"]);
    expect(body.error.request_id).toMatch(/^req_/);
    expect(response.headers.get("X-Request-Id")).toBe(body.error.request_id);
    // Both values were charged before the answer (2 credits, two rows); the refund gives both back in one row.
    const settled = await until(
      () => accountObject(acct.accountId).movements(body.error.request_id),
      (rows) => rows.some((r) => r.kind === "refund"),
    );
    expect(settled.map((r) => [r.kind, r.plan_delta + r.pack_delta, r.key_id, r.product])).toEqual([
      ["charge", -1, acct.keyId, "specimen"],
      ["charge", -1, acct.keyId, "specimen"],
      ["refund", 2, acct.keyId, "specimen"],
    ]);
    expect(await snapshot(acct)).toMatchObject({ pack_credits: 5, reserved: 0, available: 5 });
    // Its repeat marker went with it: the value is answered afresh and charged (not a free repeat of an unseen answer).
    const again = await call<SpecimenResult>("/api/v1/specimen", json({ word: held }, keyed(acct.key)));
    expect([again.status, again.body.meta.credits_used, again.body.meta.cache_hit]).toEqual([200, 1, false]);
    // The key's daily spend is back too: a cap of 3 still covers two more credits today.
    const more = await call<{ results: unknown[] }>(
      "/api/v1/specimen/batch",
      json({ words: [`oak-${rand()}`, `elm-${rand()}`] }, keyed(acct.key)),
    );
    expect([more.status, more.body.meta.credits_used, more.body.meta.stopped_reason]).toEqual([200, 2, null]);
    expect((await snapshot(acct)).pack_credits).toBe(2);
  });

  it("a refund sent twice gives back once", async () => {
    const acct = await createAccount({ pack: 3 });
    const known = await call<SpecimenResult>("/api/v1/specimen", json({ word: `oak-${rand()}` }, keyed(acct.key)));
    const requestId = known.body.meta.request_id as string;
    await until(
      () => snapshot(acct),
      (s) => s.pack_credits === 2 && s.reserved === 0,
    );
    const object = accountObject(acct.accountId);
    const [first, second] = [await object.refundRequest(requestId), await object.refundRequest(requestId)];
    expect([first, second]).toEqual([
      { applied: true, credits: 1, units: 0 },
      { applied: false, credits: 0, units: 0 },
    ]);
    expect((await snapshot(acct)).pack_credits).toBe(3);
    expect((await object.movements(requestId)).map((r) => r.kind)).toEqual(["charge", "refund"]);
  });
});
