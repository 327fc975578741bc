/**
 * One call to the account's object per request: the rate limit is counted by the request's first call to it (the
 * walk's hold or balance read, the account snapshot), or after the answer when the route never calls it. These tests
 * pin what that means for callers: the same 429s as before, nothing held for a refused request, policies seen at once,
 * and a hold whose settle never comes back released by the alarm with its request recorded as free.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { policies } from "../../src/db/schema";
import { admin, bearer, call, createAccount, accountObject, json, lookupEmail, requestRecord } from "../helpers";

interface RouteFigures {
  route: string;
  requests: number;
  before_answer: Record<"do" | "d1_primary", { mean: number; max: number }>;
}

const burst = <T>(n: number, send: () => Promise<T>) => Promise.all(Array.from({ length: n }, send));
const codes = (responses: { status: number; body: { error?: { code: string } } }[]) =>
  responses.map((r) => (r.status === 200 ? "ok" : r.body.error!.code));

describe("admission with the first call to the account's object", () => {
  it(
    "limits test-address lookups, which hold nothing, after they are answered: 5 then 429 with " + "Retry-After",
    async () => {
      const acct = await createAccount();
      const responses = await burst(7, () => lookupEmail(acct.key, { email: "deliverable@service.test" }));
      expect(codes(responses).sort()).toEqual(["RATE_LIMITED", "RATE_LIMITED", "ok", "ok", "ok", "ok", "ok"]);
      for (const r of responses.filter((r) => r.status === 429))
        expect(Number(r.response.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    },
  );

  it("limits invalid requests too: a body that fails validation answers 429 once the key is over", async () => {
    const acct = await createAccount();
    const responses = await burst(7, () => lookupEmail(acct.key, { email: 42 }));
    expect(codes(responses).sort()).toEqual([
      "RATE_LIMITED",
      "RATE_LIMITED",
      "VALIDATION_FAILED",
      "VALIDATION_FAILED",
      "VALIDATION_FAILED",
      "VALIDATION_FAILED",
      "VALIDATION_FAILED",
    ]);
  });

  it(
    "refuses a paid lookup over the limit in the call that would hold for it: nothing held, nothing " + "charged",
    async () => {
      const acct = await createAccount({ pack: 20 });
      const responses = await burst(7, () =>
        call(
          "/api/v1/entity",
          json({ type: "lei", id: "5493001KJTIIGC8Y1R12" }, { Authorization: `Bearer ${acct.key}` }),
        ),
      );
      expect(codes(responses).filter((c) => c === "RATE_LIMITED")).toHaveLength(2);
      const charged = responses
        .filter((r) => r.status === 200)
        .reduce((sum, r) => sum + (r.body.meta as { credits_used: number }).credits_used, 0);
      const snapshot = await accountObject(acct.accountId).snapshot();
      expect(snapshot).toMatchObject({ reserved: 0, available: 20 - charged });
    },
  );

  it("answers GET /account in the call that counts the limit, and refuses the sixth of a burst", async () => {
    const acct = await createAccount({ pack: 3 });
    const responses = await burst(6, () =>
      call<{ balance: { available: number } }>("/api/v1/account", bearer(acct.key)),
    );
    expect(codes(responses).filter((c) => c === "ok")).toHaveLength(5);
    for (const r of responses.filter((r) => r.status === 200)) expect(r.body.data.balance.available).toBe(3);
  });
});

describe("policy versions from the account's object", () => {
  const put = (key: string, rules: unknown) =>
    call("/api/v1/email/policy", json(rules, { Authorization: `Bearer ${key}` }, "PUT"));
  const policyOf = async (key: string) =>
    (await lookupEmail<{ policy: unknown }>(key, { email: "deliverable@service.test" })).body.data.policy;

  it("applies a PUT and a DELETE to the very next lookup", async () => {
    const acct = await createAccount();
    expect(await policyOf(acct.key)).toBeNull();
    expect((await put(acct.key, { blocked_domains: ["service.test"] })).status).toBe(200);
    expect(await policyOf(acct.key)).toEqual({ action: "block", rules_hit: ["blocked_domains"] });
    expect(
      (await call("/api/v1/email/policy", { method: "DELETE", headers: { Authorization: `Bearer ${acct.key}` } }))
        .status,
    ).toBe(200);
    expect(await policyOf(acct.key)).toBeNull();
  });

  it(
    "answers an account's first lookup with a policy its object was never told (D1 only) from one call to the " +
      "object and no D1 primary query, teaches the object after the answer, and a PUT then changes the next answer",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const now = Date.now();
      // Written straight to D1, as a policy stored before the object kept versions would be.
      await database(env)
        .insert(policies)
        .values({
          accountId: acct.accountId,
          product: "email",
          rules: { blocked_domains: ["acme.example"] },
          createdAt: now,
          updatedAt: now,
        });
      await admin("DELETE", "/round-trips");
      const first = await lookupEmail<{ policy: unknown }>(acct.key, { email: "alice@acme.example" });
      expect(first.status).toBe(200);
      expect(first.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
      expect(first.body.data.policy).toEqual({ action: "block", rules_hit: ["blocked_domains"] });
      const { routes } = await admin<{ routes: RouteFigures[] }>("GET", "/round-trips");
      const figures = routes.find((r) => r.route === "POST /api/v1/email")!;
      expect(figures.requests).toBe(1);
      expect({ do: figures.before_answer.do.max, d1_primary: figures.before_answer.d1_primary.max }).toEqual({
        do: 1,
        d1_primary: 0,
      });
      // The object learns the version after the answer (the request's waitUntil).
      const known = async () =>
        runInDurableObject(accountObject(acct.accountId), (_instance, state) =>
          state.storage.sql
            .exec<{ stamp: number }>("SELECT stamp FROM policy_stamps WHERE product = 'email'")
            .toArray(),
        );
      const deadline = Date.now() + 5_000;
      while ((await known()).length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await known()).toEqual([{ stamp: now }]);
      expect((await put(acct.key, { blocked_domains: ["other.example"] })).status).toBe(200);
      const next = await lookupEmail<{ policy: unknown }>(acct.key, { email: "bob@acme.example" });
      expect(next.body.data.policy).toEqual({ action: "send", rules_hit: [] });
    },
  );
});

describe("a hold whose settle never arrives", () => {
  it("is released by the object's alarm, and its request is recorded as a free SERVER_ERROR", async () => {
    const acct = await createAccount({ pack: 5 });
    const stub = accountObject(acct.accountId);
    const requestId = `req_lost_${Date.now()}`;
    const admission = {
      hits: [],
      request: { requestId, accountId: acct.accountId, keyId: acct.keyId, method: "POST", path: "/api/v1/email" },
    };
    const held = await stub.enterReserve(admission, { requestId, amount: 1, keyId: acct.keyId });
    expect(held).toMatchObject({ admitted: true, value: { ok: true, granted: 1 } });
    expect((await stub.snapshot()).available).toBe(4);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE reservations SET created_at = created_at - 16 * 60 * 1000");
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.snapshot()).toMatchObject({ available: 5, reserved: 0 });
    expect((await stub.ledger(1, 100)).rows.filter((r) => r.kind === "charge")).toEqual([]);
    const record = await requestRecord(acct.key, requestId);
    expect(record.body.data).toMatchObject({
      request_id: requestId,
      endpoint: "POST /api/v1/email",
      status: 500,
      code: "SERVER_ERROR",
      credits_used: 0,
      key_id: acct.keyId,
    });
  });

  it("keeps what the Worker recorded when it did record the request", async () => {
    const acct = await createAccount({ pack: 5 });
    const stub = accountObject(acct.accountId);
    const answered = await lookupEmail(acct.key, { email: "deliverable@service.test" });
    const requestId = answered.response.headers.get("X-Request-Id")!;
    expect((await requestRecord(acct.key, requestId)).body.data).toMatchObject({ status: 200 });
    const admission = {
      hits: [],
      request: { requestId, accountId: acct.accountId, keyId: acct.keyId, method: "POST", path: "/api/v1/email" },
    };
    await stub.enterReserve(admission, { requestId, amount: 1, keyId: acct.keyId });
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE reservations SET created_at = created_at - 16 * 60 * 1000");
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // Read as every test reads a record: a 429 from the polls before is waited out, not taken for the answer.
    const record = await requestRecord(acct.key, requestId);
    expect(record.body.data).toMatchObject({ status: 200, code: null, credits_used: 0 });
  });
});
