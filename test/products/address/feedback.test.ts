/**
 * Address delivery feedback over HTTP (docs/address.md, "Delivery feedback"): outcomes recorded, returned and
 * undeliverable mail suppressing the address, later list answers citing delivery-feedback, the summary by country,
 * request errors, and no inbound sender route.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { anotherKey, bearer, call, createAccount, json } from "../../helpers";
import { installAddressData } from "../../address-samples";

beforeAll(() => installAddressData());

type Received = { recorded: number; suppressed: number; invalid: number[] };
type Item = {
  data: Record<string, unknown> & { sources: { dataset: string; version: string }[] };
  meta: { credits_used: number; cache_hit: boolean; suppressed: boolean };
};

const post = (key: string, events: unknown[]) =>
  call<Received>("/api/v1/address/feedback", json({ events }, { Authorization: `Bearer ${key}` }));
const batch = (key: string, addresses: unknown[]) =>
  call<{ results: Item[] }>("/api/v1/address/batch", json({ addresses }, { Authorization: `Bearer ${key}` }));
const rand = () => crypto.randomUUID().slice(0, 8);

/** A verified US address of its own (line 1 differs), so each test's suppressions are its own. */
const springfield = () => ({
  line1: `${rand()} Main St`,
  locality: "Springfield",
  region: "IL",
  postcode: "62701",
  country: "US",
});

describe("POST /api/v1/address/feedback", () => {
  it(
    "records outcomes; returned and undeliverable mail join the suppression list, test addresses never do, " +
      "malformed ones are named",
    async () => {
      const acct = await createAccount();
      const [returned, undeliverable, delivered] = [springfield(), springfield(), springfield()];
      const { status, body } = await post(acct.key, [
        { address: delivered, outcome: "delivered" },
        {
          address: returned,
          outcome: "returned",
          occurred_at: "2026-05-04T10:00:00Z",
          detail: "moved, left no address",
        },
        {
          address: { address: `${undeliverable.line1}, Springfield, IL 62701`, country: "US" },
          outcome: "undeliverable",
        },
        { address: { line1: "verified", country: "ZZ" }, outcome: "returned" },
        { address: { ...springfield(), postcode: "6270" }, outcome: "returned" },
      ]);
      expect(status).toBe(200);
      expect(body.data).toEqual({ recorded: 4, suppressed: 2, invalid: [4] });

      const listed = await call<{ suppressions: { address: string; reason: string; source: string }[] }>(
        "/api/v1/address/suppressions",
        bearer(await anotherKey(acct)),
      );
      const entries = listed.body.data.suppressions
        .map(({ address, reason, source }) => ({ address, reason, source }))
        .sort((a, b) => a.reason.localeCompare(b.reason));
      expect(entries).toEqual([
        {
          address: expect.stringMatching(
            new RegExp(`^US\\|62701\\|SPRINGFIELD\\|IL\\|${returned.line1.slice(0, 8).toUpperCase()} `),
          ),
          reason: "returned",
          source: "feedback",
        },
        {
          address: expect.stringMatching(
            new RegExp(`^US\\|62701\\|SPRINGFIELD\\|IL\\|${undeliverable.line1.slice(0, 8).toUpperCase()} `),
          ),
          reason: "undeliverable",
          source: "feedback",
        },
      ]);
    },
  );

  it(
    "makes later batch answers the suppressed answer, free, citing delivery-feedback; a single lookup answers fresh " +
      "without lifting it",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const address = springfield();
      await post(acct.key, [{ address, outcome: "returned", occurred_at: "2026-05-04T10:00:00Z" }]);
      await call(
        "/api/v1/address/policy",
        json({ reasons: { returned: "block" } }, { Authorization: `Bearer ${acct.key}` }, "PUT"),
      );
      const first = await batch(await anotherKey(acct), [address]);
      const item = first.body.data.results[0]!;
      expect(item.meta).toEqual({ credits_used: 0, cache_hit: false, suppressed: true });
      expect(item.data).toMatchObject({
        valid: false,
        verification: "invalid",
        reason: "returned",
        deliverable: false,
        risk_score: 100,
        risk_components: { suppressed: 100 },
        risk_level: "high",
      });
      expect(item.data.policy).toEqual({ action: "block", rules_hit: ["reasons.returned"] });
      expect(item.data.sources.slice(0, 2)).toEqual([
        { dataset: "delivery-feedback", version: "2026-05-04", coverage: "full" },
        { dataset: "suppression-list", version: "account", coverage: "full" },
      ]);
      expect(first.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 5 });

      const single = await call<Record<string, unknown>>(
        "/api/v1/address",
        json({ address }, { Authorization: `Bearer ${await anotherKey(acct)}` }),
      );
      expect(single.body.data).toMatchObject({ verification: "verified", reason: null, deliverable: null });
      expect(single.body.meta).toMatchObject({ credits_used: 1, credits_remaining: 4, suppressed: false });
      const again = await batch(await anotherKey(acct), [address]);
      expect(again.body.data.results[0]!.meta).toMatchObject({ suppressed: true, credits_used: 0 });
    },
  );

  it.each([
    ["an outcome address feedback does not know", [{ address: springfield(), outcome: "bounced" }], "events.0.outcome"],
    [
      "an address without its country",
      [{ address: { line1: "1 Main St", postcode: "62701" }, outcome: "returned" }],
      "events.0.address",
    ],
    ["no events", [], "events"],
  ])("answers %s with 422 VALIDATION_FAILED", async (_label, events, field) => {
    const acct = await createAccount();
    const { status, body } = await post(acct.key, events);
    expect([status, body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    expect(Object.keys(body.error.errors!).some((k) => k.startsWith(field))).toBe(true);
  });
});

describe("GET /api/v1/address/feedback/summary", () => {
  it("counts outcomes by country over the window", async () => {
    const acct = await createAccount();
    await post(acct.key, [
      { address: springfield(), outcome: "delivered" },
      { address: springfield(), outcome: "returned" },
      {
        address: { line1: "Via Roma 1", locality: "Roma", postcode: "00184", country: "IT" },
        outcome: "undeliverable",
      },
    ]);
    const { status, body } = await call<Record<string, unknown>>(
      "/api/v1/address/feedback/summary",
      bearer(await anotherKey(acct)),
    );
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      total: 3,
      outcomes: { delivered: 1, returned: 1, undeliverable: 1 },
      kinds: {},
      by_country: [
        { country: "US", total: 2, delivered: 1, returned: 1, undeliverable: 0 },
        { country: "IT", total: 1, delivered: 0, returned: 0, undeliverable: 1 },
      ],
      ignored: 0,
    });
  });
});

describe("routes", () => {
  it("serves no inbound sender webhook for addresses, and documents the policy and feedback routes", async () => {
    const inbound = await call("/api/v1/address/feedback/sendgrid/fb_anything", json([]));
    expect([inbound.status, inbound.body.error.code]).toEqual([404, "NOT_FOUND"]);
    const doc = (await (await SELF.fetch("https://api.test/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(methods("/api/v1/address/policy")).toEqual(["delete", "get", "put"]);
    expect(methods("/api/v1/address/feedback")).toEqual(["post"]);
    expect(methods("/api/v1/address/feedback/summary")).toEqual(["get"]);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/api/v1/address/feedback/{"))).toEqual([]);
  });
});
