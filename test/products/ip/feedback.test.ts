/**
 * IP feedback (docs/ip.md, "Feedback"): `POST /ip/feedback` records the account's outcomes (free), the summary counts
 * them by outcome and by AS, there is no inbound route, and every later answer of the account carries the latest
 * report (`feedback`, `reason: reported`, a `reported_*` risk component, a `delivery-feedback` source) at its usual
 * price.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { IpResult } from "../../../src/products/ip/result";
import { bearer, call, createAccount, json } from "../../helpers";
import { installIpSamples, placedIps } from "../../ip-samples";

type Received = { recorded: number; suppressed: number; invalid: number[] };
const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
const report = (key: string, events: unknown[]) => call<Received>("/api/v1/ip/feedback", json({ events }, auth(key)));
const summary = (key: string, query = "") =>
  call<Record<string, unknown>>(`/api/v1/ip/feedback/summary${query}`, bearer(key));
const lookup = (key: string, ip: string) => call<IpResult>("/api/v1/ip", json({ ip }, auth(key)));

beforeAll(installIpSamples);

describe("POST /api/v1/ip/feedback", () => {
  it(
    "records normalized outcomes for addresses written any way, names malformed ones, suppresses nothing and is " +
      "free",
    async () => {
      const acct = await createAccount({ pack: 1 });
      const events = [
        { ip: "8.8.8.8", outcome: "fraud", detail: "order 1234 charged back" },
        { ip: "::ffff:1.1.1.1", outcome: "legit", occurred_at: "2026-05-04T10:00:00Z" },
        { ip: "10.0.0.1", outcome: "abuse" },
        { ip: "not-an-ip", outcome: "spam" },
        { ip: "2001:4860:4860::8888", outcome: "chargeback" },
      ];
      const { status, body } = await report(acct.key, events);
      expect([status, body.data]).toEqual([200, { recorded: 4, suppressed: 0, invalid: [3] }]);
      expect(body.meta).toEqual({ request_id: expect.any(String) });
      const account = await call<{ balance: { available: number } }>("/api/v1/account", bearer(acct.key));
      expect(account.body.data.balance.available).toBe(1);
    },
  );

  it.each([
    ["an email outcome", [{ ip: "8.8.8.8", outcome: "bounced" }], "events.0.outcome"],
    ["a kind (IP outcomes have none)", [{ ip: "8.8.8.8", outcome: "fraud", bounce_type: "hard" }], null],
    ["no events", [], "events"],
    ["an address past 100 characters", [{ ip: "1".repeat(101), outcome: "fraud" }], "events.0.ip"],
  ])("answers %s with 422 VALIDATION_FAILED", async (_label, events, field) => {
    const acct = await createAccount();
    const { status, body } = await report(acct.key, events);
    if (field === null) {
      // Unknown fields are ignored, as on every route: the event is recorded without it.
      expect([status, body.data]).toEqual([200, { recorded: 1, suppressed: 0, invalid: [] }]);
      return;
    }
    expect([status, body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    expect(body.error.errors).toHaveProperty([field]);
  });

  it("needs a secret key with the ip scope, and has no inbound sender route", async () => {
    const emailOnly = await createAccount({ key: { scopes: ["email"] } });
    const refused = await report(emailOnly.key, [{ ip: "8.8.8.8", outcome: "fraud" }]);
    expect([refused.status, refused.body.error?.code]).toEqual([403, "KEY_SCOPE_DENIED"]);
    const inbound = await call("/api/v1/ip/feedback/sendgrid/fb_anything", json([], {}));
    expect([inbound.status, inbound.body.error?.code]).toEqual([404, "NOT_FOUND"]);
  });
});

describe("GET /api/v1/ip/feedback/summary", () => {
  it(
    "counts by outcome and by the AS announcing each address when reported (unknown for none), largest " + "first",
    async () => {
      const acct = await createAccount();
      await report(acct.key, [
        { ip: "8.8.8.8", outcome: "fraud" },
        { ip: "8.8.4.4", outcome: "fraud" },
        { ip: "8.8.8.9", outcome: "legit" },
        { ip: "1.1.1.1", outcome: "abuse" },
        { ip: "10.0.0.1", outcome: "spam" },
        { ip: "192.0.2.2", outcome: "chargeback" },
      ]);
      const { status, body } = await summary(acct.key);
      expect(status).toBe(200);
      const zero = { legit: 0, fraud: 0, chargeback: 0, abuse: 0, spam: 0 };
      expect(body.data).toEqual({
        since: expect.any(String),
        until: expect.any(String),
        total: 6,
        outcomes: { legit: 1, fraud: 2, chargeback: 1, abuse: 1, spam: 1 },
        kinds: {},
        by_asn: [
          { asn: "AS15169", total: 3, ...zero, fraud: 2, legit: 1 },
          { asn: "AS13335", total: 1, ...zero, abuse: 1 },
          { asn: "AS64497", total: 1, ...zero, chargeback: 1 },
          { asn: "unknown", total: 1, ...zero, spam: 1 },
        ],
        ignored: 0,
      });
      const later = await summary(
        acct.key,
        `?since=${new Date(Date.now() + 60_000).toISOString()}&until=${new Date(Date.now() + 120_000).toISOString()}`,
      );
      expect([later.body.data.total, later.body.data.by_asn]).toEqual([0, []]);
    },
  );
});

describe("feedback in later answers", () => {
  it(
    "reports the latest outcome in single and batch answers, with its risk and source, at the usual " + "price",
    async () => {
      const acct = await createAccount({ pack: 2 });
      const [fraud, chargeback, abuse, spam, cleared] = placedIps(5);
      await report(acct.key, [
        { ip: fraud, outcome: "fraud" },
        { ip: chargeback, outcome: "chargeback" },
        { ip: abuse, outcome: "abuse" },
        { ip: spam, outcome: "spam" },
        { ip: cleared, outcome: "fraud" },
      ]);
      await report(acct.key, [{ ip: cleared, outcome: "legit" }]);
      const single = await lookup(acct.key, fraud!);
      expect(single.status).toBe(200);
      expect(single.body.data).toMatchObject({
        placed: true,
        feedback: { outcome: "fraud", reported_at: expect.any(String) },
        reason: "reported",
        risk_components: { reported_fraud: 80 },
        risk_score: 80,
        risk_level: "high",
      });
      expect(single.body.data.sources).toContainEqual({
        dataset: "delivery-feedback",
        version: single.body.data.feedback!.reported_at,
        coverage: "full",
      });
      expect(single.body.meta).toMatchObject({
        credits_used: 1,
        cache_hit: false,
        suppressed: false,
        ip_lookups_prepaid: 4,
      });

      const batch = await call<{ results: { data: IpResult; meta: { credits_used: number } }[] }>(
        "/api/v1/ip/batch",
        json({ ips: [chargeback, abuse, spam, cleared] }, auth(acct.key)),
      );
      expect(
        batch.body.data.results.map(({ data }) => [
          data.feedback?.outcome,
          data.reason,
          data.risk_components,
          data.risk_score,
          data.risk_level,
        ]),
      ).toEqual([
        ["chargeback", "reported", { reported_chargeback: 80 }, 80, "high"],
        ["abuse", "reported", { reported_abuse: 60 }, 60, "medium"],
        ["spam", "reported", { reported_spam: 40 }, 40, "medium"],
        ["legit", null, {}, 0, "low"],
      ]);
      expect(batch.body.data.results.map((r) => r.meta.credits_used)).toEqual([0, 0, 0, 0]);
      expect(batch.body.meta).toMatchObject({ credits_used: 0, ip_lookups_prepaid: 0 });
    },
  );

  it("stays the account's own: another account's answer has no feedback; an allow list still wins", async () => {
    const [owner, other] = await Promise.all([createAccount({ pack: 1 }), createAccount({ pack: 1 })]);
    const [ip] = placedIps(1);
    await report(owner.key, [{ ip, outcome: "fraud" }]);
    const theirs = await lookup(other.key, ip!);
    expect(theirs.body.data).toMatchObject({ feedback: null, reason: null, risk_score: 0 });
    expect(theirs.body.data.sources.map((s) => s.dataset)).not.toContain("delivery-feedback");
    await call("/api/v1/ip/lists", json({ name: "Known", kind: "allow", entries: [ip] }, auth(owner.key)));
    const mine = await lookup(owner.key, ip!);
    expect(mine.body.data).toMatchObject({
      feedback: { outcome: "fraud" },
      reason: "allow_list",
      risk_components: { allow_list: 0 },
      risk_score: 0,
    });
  });

  it("leaves test values canonical: feedback on them is counted, never in their answer", async () => {
    const acct = await createAccount();
    await report(acct.key, [{ ip: "192.0.2.1", outcome: "fraud" }]);
    const answer = await lookup(acct.key, "192.0.2.1");
    expect(answer.body.data).toMatchObject({
      feedback: null,
      reason: null,
      risk_score: 0,
      sources: [{ dataset: "ip-test-values", version: "1", coverage: "full" }],
    });
  });
});
