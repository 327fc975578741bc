import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEY } from "../../../src/auth/keys";
import { admin, anotherKey, bearer, call, createAccount, json, lookupEmail, type TestAccount } from "../../helpers";

type Decision = { action: string; rules_hit: string[] } | null;
type Answer = { email: string; policy: Decision; deliverable: string };

/** Keys of one account taken in turn: each key allows 5 requests a second. */
async function keys(acct: TestAccount, n = 3) {
  const pool = [acct.key, ...(await Promise.all(Array.from({ length: n - 1 }, () => anotherKey(acct))))];
  let i = 0;
  return () => pool[i++ % pool.length]!;
}

const put = (key: string, rules: unknown) =>
  call<{ policy: { rules: Record<string, unknown> } | null }>(
    "/api/v1/email/policy",
    json(rules, { Authorization: `Bearer ${key}` }, "PUT"),
  );
const get = (key: string) => call<{ policy: unknown }>("/api/v1/email/policy", bearer(key));
const batch = (key: string, emails: string[]) =>
  call<{ results: { data: Answer; meta: { credits_used: number } }[] }>(
    "/api/v1/email/batch",
    json({ emails }, { Authorization: `Bearer ${key}` }),
  );

const RULES = {
  disposable: "block",
  role: "review",
  catch_all: "review",
  risk_level: { high: "block" },
  blocked_domains: ["blocked.example"],
  allowed_domains: ["Catchall.Example"],
};

describe("GET, PUT, DELETE /api/v1/email/policy", () => {
  it("starts with no policy: GET answers policy null and every answer carries policy: null", async () => {
    const acct = await createAccount();
    const { status, body } = await get(acct.key);
    expect(status).toBe(200);
    expect(body.data).toEqual({ policy: null });
    const single = await lookupEmail<Answer>(acct.key, { email: "role@service.test" });
    expect(single.body.data.policy).toBeNull();
  });

  it(
    "stores the rules (domains in punycode, lowercase) and answers each address with its action and the rules " + "hit",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const key = await keys(acct);
      const saved = await put(key(), RULES);
      expect(saved.status).toBe(200);
      expect(saved.body.data.policy!.rules).toEqual({ ...RULES, allowed_domains: ["catchall.example"] });
      expect((await get(key())).body.data.policy).toMatchObject({
        rules: saved.body.data.policy!.rules,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });

      const { body } = await batch(key(), [
        "disposable@service.test",
        "role@service.test",
        "deliverable@service.test",
        "catch-all@service.test",
        "x@blocked.example",
      ]);
      expect(body.data.results.map((r) => r.data.policy)).toEqual([
        { action: "block", rules_hit: ["risk_level.high", "disposable"] },
        { action: "review", rules_hit: ["role"] },
        { action: "send", rules_hit: [] },
        { action: "review", rules_hit: ["catch_all"] },
        { action: "block", rules_hit: ["blocked_domains", "risk_level.high"] },
      ]);
    },
  );

  it("lets allowed_domains outrank every other rule", async () => {
    const acct = await createAccount({ pack: 5 });
    await put(acct.key, {
      catch_all: "block",
      blocked_domains: ["catchall.example"],
      allowed_domains: ["catchall.example"],
    });
    const { body } = await lookupEmail<Answer>(acct.key, {
      email: `p${crypto.randomUUID().slice(0, 8)}@catchall.example`,
    });
    expect(body.data.policy).toEqual({ action: "send", rules_hit: ["allowed_domains"] });
  });

  it("never changes the price: the same fresh answers cost the same with a blocking policy", async () => {
    const without = await createAccount({ pack: 5 });
    const withPolicy = await createAccount({ pack: 5 });
    await put(withPolicy.key, { deliverable: { risky: "block" }, catch_all: "block" });
    const address = () => `p${crypto.randomUUID().slice(0, 8)}@catchall.example`;
    const a = await lookupEmail<Answer>(without.key, { email: address() });
    const b = await lookupEmail<Answer>(withPolicy.key, { email: address() });
    expect(a.body.data.policy).toBeNull();
    expect(b.body.data.policy).toEqual({ action: "block", rules_hit: ["deliverable.risky", "catch_all"] });
    expect(b.body.meta).toMatchObject({
      credits_used: a.body.meta.credits_used,
      credits_remaining: a.body.meta.credits_remaining,
    });
    expect(b.body.meta.credits_used).toBe(1);
  });

  it("applies a changed policy to a repeat answer at once, and DELETE brings back policy: null", async () => {
    const acct = await createAccount({ pack: 5 });
    const key = await keys(acct);
    const email = `p${crypto.randomUUID().slice(0, 8)}@catchall.example`;
    await put(key(), { catch_all: "review" });
    expect((await lookupEmail<Answer>(key(), { email })).body.data.policy).toEqual({
      action: "review",
      rules_hit: ["catch_all"],
    });
    await put(key(), { catch_all: "block" });
    const repeat = await lookupEmail<Answer>(key(), { email });
    expect(repeat.body.meta).toMatchObject({ cache_hit: true, credits_used: 0 });
    expect(repeat.body.data.policy).toEqual({ action: "block", rules_hit: ["catch_all"] });
    const deleted = await call("/api/v1/email/policy", { method: "DELETE", ...bearer(key()) });
    expect(deleted.body.data).toEqual({ deleted: true });
    expect((await lookupEmail<Answer>(key(), { email })).body.data.policy).toBeNull();
    expect((await call("/api/v1/email/policy", { method: "DELETE", ...bearer(key()) })).body.data).toEqual({
      deleted: false,
    });
  });

  it.each([
    ["an unknown rule", { typo_rule: "block" }, "body"],
    ["an unknown action", { role: "maybe" }, "role"],
    ["a domain that is not one", { blocked_domains: ["not a domain"] }, "blocked_domains.0"],
    ["an unknown reason", { reasons: { sleepy: "block" } }, "reasons"],
  ])("answers %s with 422 VALIDATION_FAILED, free", async (_label, rules, field) => {
    const acct = await createAccount();
    const { status, body } = await put(acct.key, rules);
    expect(status).toBe(422);
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(Object.keys(body.error.errors!).some((k) => k.startsWith(field))).toBe(true);
  });

  it("keeps each account's policy its own; the sandbox key's answers carry policy: null", async () => {
    const mine = await createAccount();
    const other = await createAccount();
    await put(mine.key, { role: "block" });
    expect((await lookupEmail<Answer>(other.key, { email: "role@service.test" })).body.data.policy).toBeNull();
    expect((await get(other.key)).body.data.policy).toBeNull();
    const sandbox = await call<Answer>(
      "/api/v1/email",
      json(
        { email: "role@service.test" },
        { Authorization: `Bearer ${SANDBOX_KEY}`, "CF-Connecting-IP": "192.0.2.77" },
      ),
    );
    expect(sandbox.body.data.policy).toBeNull();
  });

  it("stamps the browser endpoint's answers with the key owner's policy action, without rules_hit", async () => {
    const acct = await createAccount();
    await put(acct.key, { role: "review" });
    const pk = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      user_id: acct.userId,
      allowed_domains: ["localhost"],
    });
    const response = await SELF.fetch(
      "https://api.test/api/v1/email/public",
      json(
        { key: pk.key, email: "role@service.test" },
        { Origin: "http://localhost:3000", "CF-Connecting-IP": "192.0.2.78" },
      ),
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: Answer }).data.policy).toEqual({ action: "review" });
  });

  it("answers 403 KEY_SCOPE_DENIED for a key without the email scope", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    expect((await get(acct.key)).body.error.code).toBe("KEY_SCOPE_DENIED");
  });
});

describe("policy in bulk results", () => {
  it("adds policy_action and policy_rules_hit columns to the CSV", async () => {
    const acct = await createAccount({ pack: 5 });
    const key = await keys(acct);
    await put(key(), { role: "review", disposable: "block", risk_level: { high: "block" } });
    const created = await call<{ job: { id: number } }>(
      "/api/v1/email/bulk",
      json(
        { emails: ["role@service.test", "disposable@service.test", "deliverable@service.test"] },
        { Authorization: `Bearer ${key()}` },
      ),
    );
    expect(created.status).toBe(202);
    const id = created.body.data.job.id;
    const deadline = Date.now() + 15_000;
    let status = "queued";
    while (["queued", "processing"].includes(status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await call<{ job: { status: string } }>(`/api/v1/email/bulk/${id}`, bearer(key()))).body.data.job
        .status;
    }
    const csv = await (await SELF.fetch(`https://api.test/api/v1/email/bulk/${id}/results`, bearer(key()))).text();
    const [header, ...rows] = csv
      .trim()
      .split("\n")
      .map((line) => line.split(","));
    const action = header!.indexOf("policy_action");
    const hit = header!.indexOf("policy_rules_hit");
    expect(header!.slice(-4)).toEqual(["policy_action", "policy_rules_hit", "credits_used", "suppressed"]);
    const byIndex = Object.fromEntries(rows.map((r) => [r[0], [r[action], r[hit]]]));
    expect(byIndex).toEqual({
      "0": ["review", "role"],
      "1": ["block", "risk_level.high disposable"],
      "2": ["send", ""],
    });
  });
});
