import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { insertRequestRecords } from "../../../src/db/request-log";
import { mintRequestId, newRequestId } from "../../../src/http/request-id-format";
import { RECORD_READABLE_WITHIN_MS } from "../../../src/http/request-record";
import worker from "../../../src/index";
import { assertDocumentedResponse } from "../../openapi-check";
import {
  admin,
  BASE,
  bearer,
  call,
  createAccount,
  accountObject,
  type Envelope,
  lookupEmail,
  requestRecord,
} from "../../helpers";

/** What the test reads of a route's round trips (GET /admin/v1/round-trips). */
interface RouteFigures {
  route: string;
  before_answer: Record<"do" | "d1_primary", { mean: number; max: number }>;
}

/** What the test reads of a ledger entry. */
interface LedgerEntry {
  kind: string;
  request_id: string | null;
  plan_delta: number;
  product?: string | null;
}

/** Calls the Worker directly so the request log written after the response can be awaited. */
async function fetchAndFlush(path: string, key: string) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(`${BASE}${path}`, bearer(key)), env, ctx);
  await waitOnExecutionContext(ctx);
  const body = (await response.json()) as Envelope;
  await assertDocumentedResponse("GET", `${BASE}${path}`, response.status, body);
  return { response, body };
}

describe("GET /api/v1/account", () => {
  it("returns the balance with its plan/pack split, the plan, the grant and the fair-use window", async () => {
    const acct = await createAccount({ plan: "free", pack: 40 });
    const { status, body } = await call("/api/v1/account", bearer(acct.key));
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      id: acct.accountId,
      email_verified: true,
      plan: { name: "free", status: "active", monthly_credits: 100, cancelled_at: null },
      balance: { total: 140, plan: 100, pack: 40, reserved: 0, available: 140 },
      grant: { monthly_credits: 100, rollover_cap: 300 },
      fair_use: { window_days: 30, billed_answers: 0, undeliverable_checked: 0, free_undeliverable_limit: 500 },
    });
    expect(body.meta).toMatchObject({ credits_used: 0, credits_remaining: 140 });
    expect(Date.parse((body.data as { grant: { next_grant_at: string } }).grant.next_grant_at)).toBeGreaterThan(
      Date.now(),
    );
  });
});

describe("GET /api/v1/account/ledger", () => {
  it("lists every movement newest first, 100 a page, with request ids", async () => {
    const acct = await createAccount({ plan: "enterprise" });
    for (let i = 0; i < 101; i++)
      await accountObject(acct.accountId).addCredits({
        bucket: "pack",
        amount: 1,
        note: `pack ${i}`,
        requestId: `req_${i}`,
      });
    const first = await call<{ entries: { kind: string; note: string; request_id: string; pack_balance: number }[] }>(
      "/api/v1/account/ledger",
      bearer(acct.key),
    );
    expect(first.body.meta).toMatchObject({ page: 1, per_page: 100, total: 101 });
    expect(first.body.data.entries).toHaveLength(100);
    expect(first.body.data.entries[0]).toMatchObject({
      kind: "pack_credit",
      note: "pack 100",
      request_id: "req_100",
      pack_balance: 101,
    });
    const second = await call<{ entries: { note: string }[] }>("/api/v1/account/ledger?page=2", bearer(acct.key));
    expect(second.body.data.entries.map((e) => e.note)).toEqual(["pack 0"]);
  });

  it("names the product a charge paid for, and null on a grant", async () => {
    const acct = await createAccount({ plan: "free" });
    const answer = await lookupEmail(acct.key, { email: "alice@acme.example" });
    expect(answer.status).toBe(200);
    expect(answer.body.meta.credits_used).toBe(1);
    // A lookup settles after its answer is sent (docs/billing.md, "Settling after the answer"): its row may land later.
    const deadline = Date.now() + 10_000;
    let ledger = await call<{ entries: LedgerEntry[] }>("/api/v1/account/ledger", bearer(acct.key));
    while (!ledger.body.data.entries.some((e) => e.kind === "charge") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ledger = await call<{ entries: LedgerEntry[] }>("/api/v1/account/ledger", bearer(acct.key));
    }
    await assertDocumentedResponse("GET", `${BASE}/api/v1/account/ledger`, ledger.status, ledger.body);
    const { entries } = ledger.body.data;
    const charge = entries.find((e) => e.kind === "charge");
    expect(charge).toMatchObject({ request_id: answer.body.meta.request_id, plan_delta: -1 });
    expect(charge!.product).toBe("email");
    const grant = entries.find((e) => e.kind === "monthly_grant");
    expect(grant).toBeDefined();
    expect(grant!.product).toBeNull();
  });
});

describe("GET /api/v1/account/requests/{requestId}", () => {
  it("tells what one request did, including refused ones", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    const done = await fetchAndFlush("/api/v1/account", acct.key);
    const refused = await fetchAndFlush("/api/v1/account/ledger?page=0", acct.key);
    const ok = await requestRecord(acct.key, String(done.body.meta.request_id));
    expect(ok.body.data).toMatchObject({
      endpoint: "GET /api/v1/account",
      status: 200,
      code: null,
      credits_used: 0,
      key_id: acct.keyId,
    });
    const bad = await requestRecord(acct.key, refused.body.error.request_id);
    expect(bad.body.data).toMatchObject({ status: 422, code: "VALIDATION_FAILED" });
  });

  it("is readable as soon as the answer is received: the first GET right after the call answers 200", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    const done = await call("/api/v1/account", bearer(acct.key));
    const id = String(done.body.meta.request_id);
    // One GET, no retry: the record is still on its way to D1 (the queue's consumer writes it about a second later).
    const { status, body } = await call<{ request_id: string }>(`/api/v1/account/requests/${id}`, bearer(acct.key));
    expect([status, body.data?.request_id]).toEqual([200, id]);
    expect(body.data).toMatchObject({ endpoint: "GET /api/v1/account", status: 200, code: null, key_id: acct.keyId });
  });

  it("waits for a record another instance logged until it is stored; an old unknown id is 404 at once", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    // An id as the service signs it for a request made with this key (then logged by another isolate).
    const id = await mintRequestId({ secret: env.MAIL_LINK_SECRET, credential: `Bearer ${acct.key}` });
    const record = { requestId: id, accountId: acct.accountId, keyId: acct.keyId, method: "GET", path: "/x" };
    // Stored 600 ms after the GET began, as the queue's consumer would, and never in this isolate's recent records.
    const stored = new Promise((resolve) => setTimeout(resolve, 600)).then(() =>
      insertRequestRecords(env.DB, [{ ...record, status: 200, code: null, credits: 0, createdAt: Date.now() }]),
    );
    const { status, body } = await call<{ request_id: string }>(`/api/v1/account/requests/${id}`, bearer(acct.key));
    await stored;
    expect([status, body.data?.request_id]).toEqual([200, id]);
    const started = Date.now();
    const old = await call(`/api/v1/account/requests/${newRequestId(Date.now() - 60_000)}`, bearer(acct.key));
    expect([old.status, Date.now() - started < RECORD_READABLE_WITHIN_MS]).toEqual([404, true]);
  });

  it("answers a made-up fresh id 404 at once, with one look and no polling", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    const forged = newRequestId();
    await admin("DELETE", "/round-trips");
    const started = Date.now();
    const { status, body } = await call(`/api/v1/account/requests/${forged}`, bearer(acct.key));
    expect([status, body.error.code]).toEqual([404, "NOT_FOUND"]);
    // Polling would have held it until 5 s after the id's time; one look is a few milliseconds.
    expect(Date.now() - started).toBeLessThan(1_000);
    const route = (await admin<{ routes: RouteFigures[] }>("GET", "/round-trips")).routes.find(
      (r) => r.route === "GET /api/v1/account/requests/:requestId",
    )!;
    expect(route.before_answer.d1_primary.max).toBeLessThanOrEqual(1);
  });

  it("waits only for ids signed for the asking key: another key's fresh id is answered at once", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    const other = await mintRequestId({ secret: env.MAIL_LINK_SECRET, credential: "Bearer sk_live_someone_else" });
    const started = Date.now();
    expect((await call(`/api/v1/account/requests/${other}`, bearer(acct.key))).status).toBe(404);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("answers 404 NOT_FOUND for another account's request", async () => {
    const mine = await createAccount();
    const theirs = await createAccount();
    const their = await fetchAndFlush("/api/v1/account", theirs.key);
    // Stored (the queue's consumer wrote it), so the 404 below is the account check and not a record still on its way.
    expect((await requestRecord(theirs.key, String(their.body.meta.request_id))).status).toBe(200);
    const { status, body } = await call(`/api/v1/account/requests/${their.body.meta.request_id}`, bearer(mine.key));
    expect(status).toBe(404);
    expect(body.error.code).toBe("NOT_FOUND");
  });
});

describe("GET /api/v1/status/data", () => {
  it("lists every loaded dataset with name, version, records, load time and coverage", async () => {
    await env.DB.prepare(
      "INSERT OR REPLACE INTO datasets (name, version, records, loaded_at, coverage) VALUES (?, ?, ?, ?, ?)",
    )
      .bind(
        "registers-sample",
        "2026-11-01",
        1234,
        Date.parse("2026-11-02T00:00:00Z"),
        JSON.stringify({ kind: "partial", countries: ["GB"], note: "England only" }),
      )
      .run();
    const acct = await createAccount();
    const { body } = await call<{ datasets: unknown[] }>("/api/v1/status/data", bearer(acct.key));
    expect(body.data.datasets).toContainEqual({
      name: "registers-sample",
      version: "2026-11-01",
      records: 1234,
      loaded_at: "2026-11-02T00:00:00.000Z",
      coverage: { kind: "partial", countries: ["GB"], note: "England only" },
      refresh: null,
    });
  });

  it(
    "a dataset installed before coverage was recorded reads as partial, so no answer takes a miss in it as a " +
      "negative",
    async () => {
      await env.DB.prepare("INSERT OR REPLACE INTO datasets (name, version, records, loaded_at) VALUES (?, ?, ?, ?)")
        .bind("old-import", "2026-01-01", 5, 0)
        .run();
      const acct = await createAccount();
      const { body } = await call<{ datasets: { name: string; coverage: unknown }[] }>(
        "/api/v1/status/data",
        bearer(acct.key),
      );
      expect(body.data.datasets.find((d) => d.name === "old-import")!.coverage).toEqual({
        kind: "partial",
        note: "Installed before coverage was recorded; re-import to record it.",
      });
    },
  );

  it("every dataset carries coverage with a kind of full, partial or sample; the bundled ones are full", async () => {
    const acct = await createAccount();
    const { body } = await call<{ datasets: { name: string; coverage: { kind: string } }[] }>(
      "/api/v1/status/data",
      bearer(acct.key),
    );
    for (const d of body.data.datasets) expect(["full", "partial", "sample"], d.name).toContain(d.coverage.kind);
    for (const name of ["disposable-domains", "rdap-bootstrap", "phone-numbering-plan"])
      expect(body.data.datasets.find((d) => d.name === name)!.coverage.kind, name).toBe("full");
  });

  it("lists the bundled email snapshots with the versions answers report in sources", async () => {
    const acct = await createAccount();
    const { body } = await call<{ datasets: { name: string; version: string; records: number }[] }>(
      "/api/v1/status/data",
      bearer(acct.key),
    );
    const names = body.data.datasets.map((d) => d.name);
    for (const name of [
      "disposable-domains",
      "free-provider-domains",
      "role-addresses",
      "typo-domains",
      "provider-username-rules",
      "mx-provider-patterns",
      "provider-rules",
      "test-addresses",
      "rdap-bootstrap",
    ]) {
      expect(names, name).toContain(name);
    }
    const disposable = body.data.datasets.find((d) => d.name === "disposable-domains")!;
    expect(disposable.records).toBeGreaterThan(10_000);
    expect(disposable.version).toMatch(/^\d{4}\.\d{2}\.\d{2}-[0-9a-f]{8}$/);
  });
});

describe("operator API", () => {
  it("answers 404 on every admin path when ADMIN_TOKEN is not set", async () => {
    const ctx = createExecutionContext();
    const request = new Request(`${BASE}/admin/v1/accounts`, {
      method: "POST",
      headers: { Authorization: "Bearer anything" },
    });
    const response = await worker.fetch(request, { ...env, ADMIN_TOKEN: "" }, ctx);
    expect(response.status).toBe(404);
    expect(((await response.json()) as Envelope).error.code).toBe("NOT_FOUND");
  });

  it("answers 401 UNAUTHENTICATED for a wrong token", async () => {
    const { status, body } = await call("/admin/v1/accounts/acc_x", bearer("wrong-token"));
    expect(status).toBe(401);
    expect(body.error.code).toBe("UNAUTHENTICATED");
  });

  it("refuses a second account with the same email, and keys for non-members", async () => {
    const email = `dup-${Date.now()}@example.com`;
    await admin("POST", "/accounts", { email });
    const dup = await call("/admin/v1/accounts", {
      method: "POST",
      headers: { Authorization: "Bearer test-admin-token", "Content-Type": "application/json" },
      body: JSON.stringify({ email }),
    });
    expect(dup.status).toBe(422);
    const acct = await createAccount();
    await expect(admin("POST", `/accounts/${acct.accountId}/keys/secret`, { user_id: "usr_stranger" })).rejects.toThrow(
      /user_id/,
    );
  });

  it("changes and cancels plans", async () => {
    const acct = await createAccount({ plan: "free" });
    const upgraded = await admin<{ plan: { name: string } }>("POST", `/accounts/${acct.accountId}/plan`, {
      plan: "starter",
    });
    expect(upgraded.plan.name).toBe("starter");
    const cancelled = await admin<{ plan: { status: string; plan_credits_expire_at: string } }>(
      "POST",
      `/accounts/${acct.accountId}/plan`,
      { plan: "cancelled" },
    );
    expect(cancelled.plan.status).toBe("cancelled");
    expect(Date.parse(cancelled.plan.plan_credits_expire_at) - Date.now()).toBeGreaterThan(59 * 86_400_000);
  });

  it("creates a key with a daily cap and shows the key only once", async () => {
    const acct = await createAccount();
    const created = await admin<{ key: string; id: string; daily_credit_cap: number }>(
      "POST",
      `/accounts/${acct.accountId}/keys/secret`,
      { user_id: acct.userId, daily_credit_cap: 50, scopes: ["email"] },
    );
    expect(created.daily_credit_cap).toBe(50);
    const revoked = await admin<Record<string, unknown>>("DELETE", `/keys/${created.id}`);
    expect(revoked.key).toBeUndefined();
    expect(revoked.revoked_at).toEqual(expect.any(String));
  });
});
