import { describe, expect, it } from "vitest";
import { accountRows, anotherKey, bearer, call, createAccount, accountObject, json, lookupEmail } from "../../helpers";

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

describe("suppressions", () => {
  it("answers a suppressed or repeated address with the caller's own spelling, not the stored one", async () => {
    const acct = await createAccount({ pack: 5 });
    await call("/api/v1/email/suppressions", json({ emails: ["Carol@acme.example"] }, auth(acct.key)));
    const batch = await call<{ results: { data: { email: string; reason: string } }[] }>(
      "/api/v1/email/batch",
      json(
        { emails: ["carol@acme.example", "CAROL@ACME.EXAMPLE", "Alice@acme.example", "alice@acme.example"] },
        auth(acct.key),
      ),
    );
    expect(batch.body.data.results.map((r) => [r.data.email, r.data.reason])).toEqual([
      ["carol@acme.example", "suppressed"],
      ["CAROL@acme.example", "suppressed"],
      ["Alice@acme.example", null],
      // A copy in another case may be another mailbox (RFC 5321 2.4): the list verifies it once, so it has no mailbox
      // answer.
      ["alice@acme.example", "unverified"],
    ]);
    const repeat = await lookupEmail<{ email: string }>(acct.key, { email: "ALICE@acme.example" });
    expect([repeat.body.data.email, repeat.body.meta.cache_hit]).toEqual(["ALICE@acme.example", true]);
  });

  it("never suppresses a test address: it comes back in test_values and keeps its canonical answer", async () => {
    const acct = await createAccount({ pack: 5 });
    const added = await call(
      "/api/v1/email/suppressions",
      json({ emails: ["undeliverable+x@service.test", "carol@acme.example"] }, auth(acct.key)),
    );
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({ added: 1, invalid: [], test_values: ["undeliverable+x@service.test"] });
    const list = await call<{ suppressions: { email: string }[] }>("/api/v1/email/suppressions", bearer(acct.key));
    expect(list.body.data.suppressions.map((s) => s.email)).toEqual(["carol@acme.example"]);
    const batch = await call<{ results: { data: { reason: string } }[] }>(
      "/api/v1/email/batch",
      json({ emails: ["undeliverable+x@service.test"] }, auth(acct.key)),
    );
    expect(batch.body.data.results[0]!.data.reason).not.toBe("suppressed");
  });

  it("adds by hand, lists, answers batches free with reason suppressed, and removes by address or id", async () => {
    const acct = await createAccount({ pack: 5 });
    const added = await call<{ added: number; invalid: string[] }>(
      "/api/v1/email/suppressions",
      json(
        { emails: ["Alice <ALICE@acme.example>", "bob@acme.example", "nonsense"], reason: "unsubscribed" },
        auth(acct.key),
      ),
    );
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({ added: 2, invalid: ["nonsense"], test_values: [] });

    const list = await call<{ suppressions: { id: number; email: string; reason: string; source: string }[] }>(
      "/api/v1/email/suppressions",
      bearer(acct.key),
    );
    expect(list.body.meta).toMatchObject({ page: 1, per_page: 100, total: 2 });
    expect(list.body.data.suppressions.map((s) => [s.email, s.reason, s.source])).toEqual([
      ["bob@acme.example", "unsubscribed", "manual"],
      ["alice@acme.example", "unsubscribed", "manual"],
    ]);

    const batch = await call<{
      results: { data: { reason: string }; meta: { suppressed: boolean; credits_used: number } }[];
    }>("/api/v1/email/batch", json({ emails: ["alice@acme.example"] }, auth(acct.key)));
    expect(batch.body.data.results[0]).toMatchObject({
      data: { reason: "suppressed" },
      meta: { suppressed: true, credits_used: 0 },
    });

    const key = await anotherKey(acct);
    const byAddress = await call(
      "/api/v1/email/suppressions",
      json({ emails: ["alice@acme.example"] }, auth(key), "DELETE"),
    );
    expect(byAddress.body.data).toEqual({ removed: 1 });
    const bobId = list.body.data.suppressions[0]!.id;
    const byId = await call(`/api/v1/email/suppressions/${bobId}`, { method: "DELETE", ...bearer(key) });
    expect(byId.status).toBe(200);
    expect((await call(`/api/v1/email/suppressions/${bobId}`, { method: "DELETE", ...bearer(key) })).status).toBe(404);
  });

  it("answers 404 for another account's entry", async () => {
    const mine = await createAccount();
    const theirs = await createAccount();
    await call("/api/v1/email/suppressions", json({ emails: ["x@acme.example"] }, auth(theirs.key)));
    const list = await call<{ suppressions: { id: number }[] }>("/api/v1/email/suppressions", bearer(theirs.key));
    const id = list.body.data.suppressions[0]!.id;
    const { status, body } = await call(`/api/v1/email/suppressions/${id}`, { method: "DELETE", ...bearer(mine.key) });
    expect(status).toBe(404);
    expect(body.error.code).toBe("NOT_FOUND");
  });
});

describe("GET /api/v1/email/history", () => {
  it("lists answers newest first with filters that combine, and the retention in meta", async () => {
    const acct = await createAccount({ pack: 5 });
    await lookupEmail(acct.key, { email: "alice@acme.example" });
    await lookupEmail(acct.key, { email: "nobody9@acme.example" });
    await lookupEmail(acct.key, { email: "deliverable@service.test" });
    const all = await call<{ lookups: { email: string; deliverable: string; credits_used: number }[] }>(
      "/api/v1/email/history",
      bearer(acct.key),
    );
    expect(all.body.data.lookups.map((l) => l.email)).toEqual(["nobody9@acme.example", "alice@acme.example"]);
    expect(all.body.meta).toMatchObject({ page: 1, per_page: 100, total: 2, retention_days: 90 });
    const today = new Date().toISOString().slice(0, 10);
    const key = await anotherKey(acct);
    const filtered = await call<{ lookups: { email: string }[] }>(
      `/api/v1/email/history?deliverable=deliverable&since=${today}&until=${today}`,
      bearer(key),
    );
    expect(filtered.body.data.lookups.map((l) => l.email)).toEqual(["alice@acme.example"]);
    const none = await call<{ lookups: unknown[] }>("/api/v1/email/history?until=2020-01-01", bearer(key));
    expect(none.body.data.lookups).toEqual([]);
  });

  it.each(["since=yesterday", "deliverable=maybe", "page=0"])("answers 422 for %s", async (query) => {
    const acct = await createAccount();
    const { status, body } = await call(`/api/v1/email/history?${query}`, bearer(acct.key));
    expect(status).toBe(422);
    expect(Object.keys(body.error.errors!)).toEqual([query.split("=")[0]]);
  });
});

describe("retention sweep", () => {
  it("deletes history past 90 days and repeat markers past 7 days (the account's object prunes its own)", async () => {
    const acct = await createAccount({ pack: 5 });
    await lookupEmail(acct.key, { email: "alice@acme.example" });
    const old = Date.now() - 91 * 86_400_000;
    await accountRows(acct.accountId, "UPDATE history SET created_at = ?", old);
    await accountRows(acct.accountId, "UPDATE repeats SET created_at = ?", old);
    await accountObject(acct.accountId).pruneLists();
    const [left] = await accountRows<{ n: number }>(
      acct.accountId,
      "SELECT (SELECT COUNT(*) FROM history) + (SELECT COUNT(*) FROM repeats) AS n",
    );
    expect(left?.n).toBe(0);
  });
});
