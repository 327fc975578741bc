/**
 * `delivery_point: true` on POST /address and /address/batch (docs/address.md, "Delivery-point check";
 * docs/partners.md): the partners' stand-in answers as Smarty (US) and Google Address Validation (elsewhere); what an
 * address does is read from words of its street line. Each case checks the answer, the credits and the partner's calls.
 */
import { env } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runMonitor } from "../../../src/engines/monitors/run";
import { monitorById } from "../../../src/engines/monitors/store";
import { resetBreakers } from "../../../src/platform/partners/guard";
import { address } from "../../../src/products/address/product";
import { installMountainViewZip } from "../../address-samples";
import { bearer, call, createAccount, json } from "../../helpers";

beforeAll(installMountainViewZip);
beforeEach(() => resetBreakers());

let n = 0;
/** A street line with a fresh house number, so each case asks the stand-in about its own value. */
const street = (words: string) => `${1000 + ++n} ${words}`;
const us = (line1: string) => ({ line1, locality: "Mountain View", region: "CA", postcode: "94043", country: "US" });

type Answer = Record<string, unknown> & {
  delivery_point: Record<string, unknown> | null;
  sources: { dataset: string; version: string }[];
};
const verify = (key: string, body: Record<string, unknown>) =>
  call<Answer>("/api/v1/address", json(body, bearer(key).headers as Record<string, string>));

async function callsFor(partner: "smarty" | "google", line1: string): Promise<number> {
  const stats = (await (await fetch(`${env.PARTNERS_URL}/stats`)).json()) as Record<string, Record<string, number>>;
  return stats[partner]![line1] ?? 0;
}

describe("POST /api/v1/address with delivery_point: true", () => {
  it(
    "confirms a US delivery point through Smarty: deliverable, standardized with ZIP+4, cited with the time; 2 " +
      "credits",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const line1 = street("Amphitheatre Pkwy");
      const { status, body } = await verify(acct.key, { address: us(line1), delivery_point: true });
      expect(status).toBe(200);
      expect(body.data).toMatchObject({
        verification: "verified",
        precision: "premise",
        deliverable: true,
        delivery_point: {
          match: "confirmed",
          vacant: false,
          residential: false,
          standardized: { line1, locality: "Mountain View", region: "CA", postcode: "94043-1351" },
          footnotes: ["AA", "BB", "N#"],
        },
        reason: null,
        risk_score: 0,
      });
      expect(Date.parse(body.data.sources.find((s) => s.dataset === "smarty-us-street")!.version)).not.toBeNaN();
      expect(body.meta).toMatchObject({ credits_used: 2, credits_remaining: 8 });
      expect(await callsFor("smarty", line1)).toBe(1);
    },
  );

  it("answers the issue's nonexistent street invalid: not deliverable, no_delivery_point, risk 60, free", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await verify(acct.key, {
      address: "99999 Nonexistent Blvd, Mountain View, CA 94043",
      country: "US",
      delivery_point: true,
    });
    // The partner decides what it was asked: no delivery point, so the address does not stand as written (invalid,
    // free as the address contract bills invalid answers), whatever the ZIP and the town said.
    expect(body.data).toMatchObject({
      valid: false,
      verification: "invalid",
      precision: "locality",
      deliverable: false,
      delivery_point: { match: "not_confirmed", vacant: null, residential: null, standardized: null, footnotes: [] },
      reason: "no_delivery_point",
      risk_score: 60,
      risk_level: "medium",
    });
    expect(body.data.risk_components).toEqual({ no_delivery_point: 60 });
    expect(body.meta).toMatchObject({ credits_used: 0 });
  });

  it("answers without a check, and without a partner call, when the option is not given", async () => {
    const acct = await createAccount({ pack: 10 });
    const line1 = street("Nonexistent Blvd");
    const { body } = await verify(acct.key, { address: us(line1) });
    // Verified (the ZIP and the town agree), but nobody checked the street: never scored as safe as a checked one.
    expect(body.data).toMatchObject({
      verification: "verified",
      precision: "locality",
      deliverable: null,
      delivery_point: null,
      reason: null,
      risk_score: 15,
      risk_components: { street_unchecked: 15 },
      risk_level: "low",
    });
    expect(body.meta).toMatchObject({ credits_used: 1 });
    expect(await callsFor("smarty", line1)).toBe(0);
    // The partner's confirmed delivery point checks what the precision left: the same address scores 0 once checked.
    const checked = await verify(acct.key, { address: us(street("Checked Way")), delivery_point: true });
    expect(checked.body.data).toMatchObject({ precision: "premise", deliverable: true, risk_score: 0 });
  });

  it("reads vacant (risk 30), a missing unit (deliverable null) and an ignored unit (deliverable true)", async () => {
    const acct = await createAccount({ pack: 20 });
    const vacant = await verify(acct.key, { address: us(street("Vacant Lot Rd")), delivery_point: true });
    expect(vacant.body.data).toMatchObject({
      deliverable: true,
      delivery_point: { vacant: true, residential: true },
      risk_components: { vacant: 30 },
    });
    const missing = await verify(acct.key, { address: us(street("Missing Unit Ave")), delivery_point: true });
    expect(missing.body.data).toMatchObject({
      deliverable: null,
      delivery_point: { match: "missing_secondary", footnotes: ["AA", "N1", "N#"] },
      reason: null,
    });
    const ignored = await verify(acct.key, { address: us(street("Ignored Unit Ave")), delivery_point: true });
    expect(ignored.body.data).toMatchObject({
      deliverable: true,
      delivery_point: { match: "confirmed_secondary_ignored" },
    });
  });

  it("answers a checked repeat within 7 days from the stored answer: free, no second call", async () => {
    const acct = await createAccount({ pack: 10 });
    const line1 = street("Amphitheatre Pkwy");
    await verify(acct.key, { address: us(line1), delivery_point: true });
    const again = await verify(acct.key, { address: us(line1), delivery_point: true });
    expect(again.body.data).toMatchObject({ deliverable: true });
    expect(again.body.meta).toMatchObject({ credits_used: 0, cache_hit: true, credits_remaining: 8 });
    expect(await callsFor("smarty", line1)).toBe(1);
  });

  it(
    "answers unchecked with partner_unavailable, free, on a partner error, a timeout, and retries after a " + "429",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const failed = await verify(acct.key, { address: us(street("500 Error St")), delivery_point: true });
      expect(failed.body.data).toMatchObject({
        verification: "verified",
        deliverable: null,
        delivery_point: null,
        reason: "partner_unavailable",
      });
      expect(failed.body.meta).toMatchObject({ credits_used: 0 });
      // The partner was asked and gave no answer: cited, `none`.
      expect(failed.body.data.sources.find((s) => s.dataset === "smarty-us-street")).toMatchObject({
        coverage: "none",
      });
      const slow = await verify(acct.key, { address: us(street("408 Slow St")), delivery_point: true });
      expect(slow.body.data).toMatchObject({ delivery_point: null, reason: "partner_unavailable" });
      expect(slow.body.meta).toMatchObject({ credits_used: 0 });
      const line1 = street("429 Busy St");
      const busy = await verify(acct.key, { address: us(line1), delivery_point: true });
      expect(busy.body.data).toMatchObject({ deliverable: true });
      expect(busy.body.meta).toMatchObject({ credits_used: 2, credits_remaining: 8 });
      expect(await callsFor("smarty", line1)).toBe(2);
    },
  );

  it("asks Google outside the US: a format-only German address confirmed is verified, premise, 2 credits", async () => {
    const acct = await createAccount({ pack: 10 });
    const line1 = street("Hauptstraße");
    const { body } = await verify(acct.key, {
      address: { line1, locality: "Berlin", postcode: "10115", country: "DE" },
      delivery_point: true,
    });
    // Outside the open data's coverage the partner's confirmed premise is the verification (docs/address.md table).
    expect(body.data).toMatchObject({
      valid: true,
      verification: "verified",
      precision: "premise",
      reason: null,
      deliverable: true,
      delivery_point: { match: "confirmed", residential: true, footnotes: ["granularity:PREMISE"] },
      risk_score: 0,
    });
    expect(body.data.sources.find((s) => s.dataset === "google-address-validation")).toMatchObject({
      coverage: "full",
    });
    expect(body.meta).toMatchObject({ credits_used: 2 });
    expect(await callsFor("google", line1)).toBe(1);
  });
});

describe("POST /api/v1/address/batch with delivery_point: true", () => {
  it("sends the distinct US addresses to Smarty in one call, once each", async () => {
    const acct = await createAccount({ pack: 20 });
    const a = street("Amphitheatre Pkwy");
    const b = street("Nonexistent Blvd");
    const { status, body } = await call<{ results: { data: Answer; meta: Record<string, unknown> }[] }>(
      "/api/v1/address/batch",
      json(
        { addresses: [us(a), us(b), us(a)], delivery_point: true },
        bearer(acct.key).headers as Record<string, string>,
      ),
    );
    expect(status).toBe(200);
    expect(body.data.results.map((r) => [r.data.deliverable, r.meta.credits_used])).toEqual([
      [true, 2],
      [false, 0],
      [true, 0],
    ]);
    expect([await callsFor("smarty", a), await callsFor("smarty", b)]).toEqual([1, 1]);
  });
});

describe("address policy requiring a confirmed delivery point", () => {
  it("reviews unchecked and unconfirmed answers, sends confirmed ones, and never changes the price", async () => {
    const acct = await createAccount({ pack: 20 });
    const auth = bearer(acct.key).headers as Record<string, string>;
    const put = await call("/api/v1/address/policy", json({ delivery_point: "review" }, auth, "PUT"));
    expect(put.status).toBe(200);
    const confirmed = await verify(acct.key, { address: us(street("Amphitheatre Pkwy")), delivery_point: true });
    expect([confirmed.body.data.policy, confirmed.body.meta.credits_used]).toEqual([
      { action: "send", rules_hit: [] },
      2,
    ]);
    const unconfirmed = await verify(acct.key, { address: us(street("Nonexistent Blvd")), delivery_point: true });
    expect(unconfirmed.body.data.policy).toEqual({ action: "review", rules_hit: ["delivery_point"] });
    const unchecked = await verify(acct.key, { address: us(street("Amphitheatre Pkwy")) });
    expect([unchecked.body.data.policy, unchecked.body.meta.credits_used]).toEqual([
      { action: "review", rules_hit: ["delivery_point"] },
      1,
    ]);
  });
});

describe("address monitors with delivery_point: true", () => {
  const EIGHT_DAYS = 8 * 86_400_000;
  const monitorOf = async (key: string, addresses: unknown[], extra: Record<string, unknown> = {}) => {
    const auth = bearer(key).headers as Record<string, string>;
    const created = await call<{ monitor: { id: number; delivery_point: boolean } }>(
      "/api/v1/address/monitors",
      json({ name: "Deliveries", addresses, cadence: "weekly", delivery_point: true, ...extra }, auth),
    );
    return { auth, created };
  };

  it(
    "checks every address of a run, bills 2 a confirmed one, and reports a " +
      "delivery point that is gone as a deliverable change, free",
    async () => {
      const acct = await createAccount({ pack: 20 });
      const line1 = street("Demolished Ave");
      const { auth, created } = await monitorOf(acct.key, [us(line1)]);
      expect([created.status, created.body.data.monitor.delivery_point]).toEqual([201, true]);
      const id = created.body.data.monitor.id;
      const first = await call<{ summary: Record<string, unknown> }>(
        `/api/v1/address/monitors/${id}/run`,
        json({}, auth),
      );
      expect(first.body.data.summary).toMatchObject({ checked: 1, new_baselines: 1, credits_used: 2, verified: 1 });
      // Eight days later the checked answer is past its repeat window: the run asks the partner again.
      const later = await runMonitor(env, address, (await monitorById(env, id))!, { now: Date.now() + EIGHT_DAYS });
      // Gone: invalid, free (an invalid answer is never billed), and the verification's change is reported too.
      expect(later.summary).toMatchObject({ checked: 1, changed: 1, credits_used: 0 });
      expect(later.changes).toEqual([
        expect.objectContaining({
          changes: expect.arrayContaining([
            { field: "deliverable", from: true, to: false },
            { field: "verification", from: "verified", to: "invalid" },
          ]),
        }),
      ]);
      expect(await callsFor("smarty", line1)).toBe(2);
      const patched = await call<{ monitor: { delivery_point: boolean } }>(
        `/api/v1/address/monitors/${id}`,
        json({ delivery_point: false }, auth, "PATCH"),
      );
      expect(patched.body.data.monitor.delivery_point).toBe(false);
    },
  );

  it("runs a partner outage free, with partner_unavailable and no deliverable change", async () => {
    const acct = await createAccount({ pack: 20 });
    const line1 = street("500 Error St");
    const { auth, created } = await monitorOf(acct.key, [us(line1)]);
    const id = created.body.data.monitor.id;
    const first = await call<{ summary: Record<string, unknown> }>(
      `/api/v1/address/monitors/${id}/run`,
      json({}, auth),
    );
    expect(first.body.data.summary).toMatchObject({ checked: 1, new_baselines: 1, credits_used: 0 });
    const later = await runMonitor(env, address, (await monitorById(env, id))!, { now: Date.now() + EIGHT_DAYS });
    expect(later.summary).toMatchObject({ checked: 1, changed: 0, credits_used: 0 });
    expect(await callsFor("smarty", line1)).toBeGreaterThan(0);
    const account = await call<{ balance: { available: number } }>("/api/v1/account", bearer(acct.key));
    expect(account.body.data.balance.available).toBe(20);
  });

  it("without the option runs unchecked, 1 credit, no partner call", async () => {
    const acct = await createAccount({ pack: 20 });
    const line1 = street("Demolished Ave");
    const { auth, created } = await monitorOf(acct.key, [us(line1)], { delivery_point: undefined });
    expect(created.body.data.monitor.delivery_point).toBe(false);
    const run = await call<{ summary: Record<string, unknown> }>(
      `/api/v1/address/monitors/${created.body.data.monitor.id}/run`,
      json({}, auth),
    );
    expect(run.body.data.summary).toMatchObject({ checked: 1, credits_used: 1 });
    expect(await callsFor("smarty", line1)).toBe(0);
  });
});
