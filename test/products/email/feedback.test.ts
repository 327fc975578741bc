import { describe, expect, it } from "vitest";
import { anotherKey, bearer, call, createAccount, json, lookupEmail, type TestAccount } from "../../helpers";

type Received = { recorded: number; suppressed: number; invalid: number[] };
const rand = () => crypto.randomUUID().slice(0, 8);

const post = (key: string, events: unknown[]) =>
  call<Received>("/api/v1/email/feedback", json({ events }, { Authorization: `Bearer ${key}` }));
const summary = (key: string, query = "") =>
  call<Record<string, unknown>>(`/api/v1/email/feedback/summary${query}`, bearer(key));

async function keys(acct: TestAccount) {
  const pool = [acct.key, await anotherKey(acct), await anotherKey(acct)];
  let i = 0;
  return () => pool[i++ % pool.length]!;
}

describe("POST /api/v1/email/feedback", () => {
  it(
    "records normalized outcomes; hard bounces and complaints join the suppression list, malformed values are " +
      "named",
    async () => {
      const acct = await createAccount();
      const key = await keys(acct);
      const tag = rand();
      const events = [
        { email: `ok-${tag}@acme.example`, outcome: "delivered" },
        {
          email: `Hard <hard-${tag}@Acme.Example>`,
          outcome: "bounced",
          bounce_type: "hard",
          occurred_at: "2026-05-04T10:00:00Z",
        },
        { email: `soft-${tag}@acme.example`, outcome: "bounced", bounce_type: "soft" },
        { email: `default-${tag}@other.example`, outcome: "bounced" },
        { email: `spam-${tag}@other.example`, outcome: "complained", detail: "feedback loop" },
        { email: "not an address", outcome: "delivered" },
      ];
      const { status, body } = await post(key(), events);
      expect(status).toBe(200);
      expect(body.data).toEqual({ recorded: 5, suppressed: 3, invalid: [5] });
      expect(body.meta).toMatchObject({ request_id: expect.any(String) });

      const listed = await call<{ suppressions: { email: string; reason: string; source: string }[] }>(
        "/api/v1/email/suppressions",
        bearer(key()),
      );
      const entries = listed.body.data.suppressions.map(({ email, reason, source }) => ({ email, reason, source }));
      expect(entries).toEqual(
        expect.arrayContaining([
          { email: `hard-${tag}@acme.example`, reason: "bounced", source: "feedback" },
          { email: `default-${tag}@other.example`, reason: "bounced", source: "feedback" },
          { email: `spam-${tag}@other.example`, reason: "complained", source: "feedback" },
        ]),
      );
      expect(entries).toHaveLength(3);
    },
  );

  it(
    "makes later batch answers cite delivery-feedback, free; a single lookup re-verifies without lifting the " +
      "entry",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const key = await keys(acct);
      const email = "bob@acme.example";
      await post(key(), [{ email, outcome: "bounced", bounce_type: "hard", occurred_at: "2026-05-04T10:00:00Z" }]);
      const batch = await call<{
        results: { data: { reason: string; deliverable: string; sources: unknown[] }; meta: Record<string, unknown> }[];
      }>("/api/v1/email/batch", json({ emails: [email] }, { Authorization: `Bearer ${key()}` }));
      const item = batch.body.data.results[0]!;
      expect(item.meta).toMatchObject({ suppressed: true, credits_used: 0 });
      expect(item.data).toMatchObject({ deliverable: "undeliverable", reason: "bounced" });
      expect(item.data.sources).toContainEqual({
        dataset: "delivery-feedback",
        version: "2026-05-04",
        coverage: "full",
      });

      const single = await lookupEmail<{ deliverable: string }>(key(), { email });
      expect(single.body.data.deliverable).toBe("deliverable");
      expect(single.body.meta).toMatchObject({ suppressed: false, credits_used: 1 });
      const again = await call<{ results: { meta: { suppressed: boolean } }[] }>(
        "/api/v1/email/batch",
        json({ emails: [email] }, { Authorization: `Bearer ${key()}` }),
      );
      expect(again.body.data.results[0]!.meta.suppressed).toBe(true);
    },
  );

  it.each([
    ["an unknown outcome", [{ email: "a@acme.example", outcome: "opened" }], "events.0.outcome"],
    [
      "a bounce_type on a delivery",
      [{ email: "a@acme.example", outcome: "delivered", bounce_type: "hard" }],
      "events.0.bounce_type",
    ],
    [
      "an unknown bounce_type",
      [{ email: "a@acme.example", outcome: "bounced", bounce_type: "medium" }],
      "events.0.bounce_type",
    ],
    ["no events", [], "events"],
  ])("answers %s with 422 VALIDATION_FAILED", async (_label, events, field) => {
    const acct = await createAccount();
    const { status, body } = await post(acct.key, events);
    expect(status).toBe(422);
    expect(body.error.errors).toHaveProperty([field]);
  });
});

describe("GET /api/v1/email/feedback/summary", () => {
  it("counts by outcome, bounce type and domain over the window (last 30 days by default)", async () => {
    const acct = await createAccount();
    const key = await keys(acct);
    await post(key(), [
      { email: "a@one.example", outcome: "delivered" },
      { email: "b@one.example", outcome: "delivered" },
      { email: "c@one.example", outcome: "bounced", bounce_type: "soft" },
      { email: "d@two.example", outcome: "bounced" },
      { email: "e@two.example", outcome: "complained" },
    ]);
    const { status, body } = await summary(key());
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      total: 5,
      outcomes: { delivered: 2, bounced: 2, complained: 1 },
      kinds: { bounced: { hard: 1, soft: 1 } },
      by_domain: [
        { domain: "one.example", total: 3, delivered: 2, bounced: 1, complained: 0 },
        { domain: "two.example", total: 2, delivered: 0, bounced: 1, complained: 1 },
      ],
      ignored: 0,
    });
    expect(Date.parse(body.data.until as string) - Date.parse(body.data.since as string)).toBe(30 * 86_400_000);
    const future = await summary(key(), "?since=2999-01-01&until=2999-01-02");
    expect(future.body.data).toMatchObject({
      total: 0,
      outcomes: { delivered: 0, bounced: 0, complained: 0 },
      by_domain: [],
    });
    const backwards = await summary(key(), "?since=2026-02-01&until=2026-01-01");
    expect(backwards.status).toBe(422);
  });

  it("counts only the caller's account", async () => {
    const a = await createAccount();
    const b = await createAccount();
    await post(a.key, [{ email: "x@three.example", outcome: "delivered" }]);
    expect((await summary(b.key)).body.data).toMatchObject({ total: 0, by_domain: [] });
  });
});
