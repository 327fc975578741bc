/**
 * `network: true` on POST /phone and /phone/batch (docs/phone.md, "Live network check"; docs/partners.md): the
 * partners' stand-in (test/fixtures/partners.ts) answers as Twilio and Vonage; what a number does is read from its last
 * four digits. Each case checks the answer, the credits and how many calls the partner received.
 */
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { runMonitor } from "../../../src/engines/monitors/run";
import { monitorById } from "../../../src/engines/monitors/store";
import { resetBreakers } from "../../../src/platform/partners/guard";
import { flags } from "../../../src/products/phone/monitor";
import { phone } from "../../../src/products/phone/product";
import { admin, anotherKey, bearer, call, createAccount, json } from "../../helpers";

let exchange = 200;
/** A fresh valid US number (NANP: the plan says `fixed_line_or_mobile`) ending in `tail`. */
const us = (tail: string) => `+1650${++exchange}${tail}`;

const lookup = (key: string, body: Record<string, unknown>) =>
  call<Record<string, unknown>>("/api/v1/phone", json(body, bearer(key).headers as Record<string, string>));
const batch = (key: string, body: Record<string, unknown>) =>
  call<{ results: { data: Record<string, unknown>; meta: Record<string, unknown> }[] }>(
    "/api/v1/phone/batch",
    json(body, bearer(key).headers as Record<string, string>),
  );

async function callsFor(partner: "twilio" | "vonage", e164: string): Promise<number> {
  const stats = (await (await fetch(`${env.PARTNERS_URL}/stats`)).json()) as Record<string, Record<string, number>>;
  return stats[partner]![e164] ?? 0;
}

beforeEach(() => resetBreakers());

describe("POST /api/v1/phone with network: true", () => {
  it(
    "answers the partner's line type and current network, cites it with the time of the check, and costs 2 " +
      "credits",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const number = us("0000");
      const before = Date.now();
      const { status, body } = await lookup(acct.key, { phone: number, network: true });
      expect(status).toBe(200);
      expect(body.data).toMatchObject({
        valid: true,
        line_type: "mobile",
        carrier: "Verizon Wireless",
        carrier_source: "network",
        network_checked: true,
        network_status: "active",
        sim_swapped: null,
        reason: null,
        risk_score: 0,
      });
      const source = (body.data.sources as { dataset: string; version: string }[]).find(
        (s) => s.dataset === "twilio-lookup",
      )!;
      expect(Date.parse(source.version)).toBeGreaterThanOrEqual(before - 1_000);
      expect(body.meta).toMatchObject({ credits_used: 2, credits_remaining: 8, cache_hit: false });
      expect(await callsFor("twilio", number)).toBe(1);
    },
  );

  it("answers a checked repeat within 7 days from the stored answer: free, no second partner call", async () => {
    const acct = await createAccount({ pack: 10 });
    const number = us("0000");
    await lookup(acct.key, { phone: number, network: true });
    const again = await lookup(acct.key, { phone: number.replace("+1", "1 "), country: "US", network: true });
    expect(again.body.data).toMatchObject({ network_checked: true, carrier_source: "network" });
    expect(again.body.meta).toMatchObject({ credits_used: 0, cache_hit: true, credits_remaining: 8 });
    expect(await callsFor("twilio", number)).toBe(1);
  });

  it("checks (and bills) a number whose unchecked answer is within its 7 days", async () => {
    const acct = await createAccount({ pack: 10 });
    const number = us("0000");
    const plain = await lookup(acct.key, { phone: number });
    expect(plain.body.data).toMatchObject({
      line_type: "fixed_line_or_mobile",
      network_checked: false,
      network_status: null,
      carrier_source: null,
    });
    expect(plain.body.meta).toMatchObject({ credits_used: 1 });
    const checked = await lookup(acct.key, { phone: number, network: true });
    expect(checked.body.data).toMatchObject({ network_checked: true, line_type: "mobile" });
    expect(checked.body.meta).toMatchObject({ credits_used: 2, cache_hit: false, credits_remaining: 7 });
  });

  it("never calls a partner without the option", async () => {
    const acct = await createAccount({ pack: 10 });
    const number = us("0000");
    const { body } = await lookup(acct.key, { phone: number });
    expect(body.meta).toMatchObject({ credits_used: 1 });
    expect(await callsFor("twilio", number)).toBe(0);
  });

  it("answers an unprovisioned number inactive, with its reason and risk", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await lookup(acct.key, { phone: us("0600"), network: true });
    expect(body.data).toMatchObject({
      network_checked: true,
      network_status: "inactive",
      reason: "inactive",
      risk_score: 70,
      risk_level: "high",
      risk_components: { inactive: 70 },
    });
    expect(body.meta).toMatchObject({ credits_used: 2 });
  });

  it("asks the second partner when the first fails", async () => {
    const acct = await createAccount({ pack: 10 });
    const number = us("0503");
    const { body } = await lookup(acct.key, { phone: number, network: true });
    expect(body.data).toMatchObject({ network_checked: true, network_status: "active", carrier: "Verizon Wireless" });
    // Twilio was asked first and gave no answer (`none`); Vonage answered (`full`), in that order.
    const partners = (body.data.sources as { dataset: string; coverage: string }[]).filter(
      (s) => s.dataset === "twilio-lookup" || s.dataset === "vonage-number-insight",
    );
    expect(partners.map((s) => [s.dataset, s.coverage])).toEqual([
      ["twilio-lookup", "none"],
      ["vonage-number-insight", "full"],
    ]);
    expect(body.meta).toMatchObject({ credits_used: 2 });
    expect([await callsFor("twilio", number), await callsFor("vonage", number)]).toEqual([1, 1]);
  });

  it("answers unchecked, partner_unavailable and free when every partner fails, and asks again next time", async () => {
    const acct = await createAccount({ pack: 10 });
    const number = us("0500");
    const { body } = await lookup(acct.key, { phone: number, network: true });
    expect(body.data).toMatchObject({
      valid: true,
      network_checked: false,
      network_status: null,
      reason: "partner_unavailable",
      line_type: "fixed_line_or_mobile",
    });
    // Both partners were asked and neither answered: each cited `none`, nothing of the answer is theirs.
    const partners = (body.data.sources as { dataset: string; coverage: string }[]).filter(
      (s) => s.dataset === "twilio-lookup" || s.dataset === "vonage-number-insight",
    );
    expect(partners.map((s) => [s.dataset, s.coverage])).toEqual([
      ["twilio-lookup", "none"],
      ["vonage-number-insight", "none"],
    ]);
    expect(body.meta).toMatchObject({ credits_used: 0, credits_remaining: 10 });
    const again = await lookup(acct.key, { phone: number, network: true });
    expect(again.body.meta).toMatchObject({ credits_used: 0, cache_hit: false });
    expect(await callsFor("twilio", number)).toBe(2);
  });

  it("gives up on a partner past its timeout: partner_unavailable, free", async () => {
    const acct = await createAccount({ pack: 10 });
    const started = Date.now();
    const { body } = await lookup(acct.key, { phone: us("0408"), network: true });
    // Each of the two partners is given up on at its timeout; the rest of the request is well under a second.
    expect(Date.now() - started).toBeLessThan(2 * Number(env.PARTNER_TIMEOUT_MS) + 1_000);
    expect(body.data).toMatchObject({ network_checked: false, reason: "partner_unavailable" });
    expect(body.meta).toMatchObject({ credits_used: 0 });
  });

  it("waits out a 429's Retry-After and answers", async () => {
    const acct = await createAccount({ pack: 10 });
    const number = us("0429");
    const started = Date.now();
    const { body } = await lookup(acct.key, { phone: number, network: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(body.data).toMatchObject({ network_checked: true });
    expect(body.meta).toMatchObject({ credits_used: 2 });
    expect(await callsFor("twilio", number)).toBe(2);
  });

  it("stops calling a failing partner once its breaker opens, and tries again after the pause", async () => {
    const acct = await createAccount({ pack: 50 });
    const failing = Array.from({ length: 5 }, () => us("0500"));
    await batch(acct.key, { phones: failing, network: true });
    const healthy = us("0000");
    const open = await lookup(acct.key, { phone: healthy, network: true });
    expect(open.body.data).toMatchObject({ network_checked: false, reason: "partner_unavailable" });
    expect(open.body.meta).toMatchObject({ credits_used: 0 });
    expect([await callsFor("twilio", healthy), await callsFor("vonage", healthy)]).toEqual([0, 0]);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const closed = await lookup(acct.key, { phone: healthy, network: true });
    expect(closed.body.data).toMatchObject({ network_checked: true });
    expect(closed.body.meta).toMatchObject({ credits_used: 2 });
  });

  it("refuses with 402 before any partner call when the account cannot pay for a checked answer", async () => {
    const acct = await createAccount({ pack: 1 });
    const number = us("0000");
    const { status, body } = await lookup(acct.key, { phone: number, network: true });
    expect([status, body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    expect(await callsFor("twilio", number)).toBe(0);
  });

  it("rejects a network option that is not a boolean with 422, free", async () => {
    const acct = await createAccount({ pack: 1 });
    const { status, body } = await lookup(acct.key, { phone: us("0000"), network: "yes" });
    expect([status, body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
  });
});

describe("POST /api/v1/phone/batch with network: true", () => {
  it("makes one partner call per distinct number, whatever the spelling or copies", async () => {
    const acct = await createAccount({ pack: 20 });
    const a = us("0000");
    const b = us("0200");
    const phones = [a, a.replace("+1", "1 "), b, { phone: a.slice(2), country: "US" }, b, "nonsense"];
    const { status, body } = await batch(acct.key, {
      phones: phones.map((p) =>
        typeof p === "string" && !p.startsWith("+") && p !== "nonsense" ? { phone: p, country: "US" } : p,
      ),
      network: true,
    });
    expect(status).toBe(200);
    expect(body.data.results.map((r) => [r.data.network_checked, r.meta.credits_used])).toEqual([
      [true, 2],
      [true, 0],
      [true, 2],
      [true, 0],
      [true, 0],
      [false, 0],
    ]);
    expect(body.data.results[2]!.data).toMatchObject({ line_type: "fixed_line", carrier: "Verizon Wireless Fixed" });
    expect(body.meta).toMatchObject({ credits_used: 4, credits_remaining: 16 });
    expect([await callsFor("twilio", a), await callsFor("twilio", b)]).toEqual([1, 1]);
  });

  it(
    "stops checking at the account's daily partner ceiling the operator set: the rest answer partner_unavailable, " +
      "free",
    async () => {
      const acct = await createAccount({ pack: 20 });
      const set = await admin<Record<string, unknown>>("PUT", `/accounts/${acct.accountId}/partner-ceiling`, {
        daily_calls: 2,
      });
      expect(set).toMatchObject({ daily_calls: 2, default: false, today: { calls: 0 } });
      const phones = [us("0000"), us("0000"), us("0000")];
      const { body } = await batch(acct.key, { phones, network: true });
      expect(body.data.results.map((r) => [r.data.network_checked, r.data.reason, r.meta.credits_used])).toEqual([
        [true, null, 2],
        [true, null, 2],
        [false, "partner_unavailable", 0],
      ]);
      expect(await callsFor("twilio", phones[2]!)).toBe(0);
      const shown = await admin<Record<string, unknown>>("GET", `/accounts/${acct.accountId}/partner-ceiling`);
      expect(shown).toMatchObject({ daily_calls: 2, today: { calls: 2 } });
      const reset = await admin<Record<string, unknown>>("PUT", `/accounts/${acct.accountId}/partner-ceiling`, {
        daily_calls: null,
      });
      expect(reset).toMatchObject({ daily_calls: 1000, default: true });
    },
  );
});

describe("phone monitors with network: true", () => {
  it("checks every number of a run and raises carrier_changed when the live network changed", async () => {
    const acct = await createAccount({ pack: 20 });
    const number = us("0888");
    const auth = bearer(acct.key).headers as Record<string, string>;
    const created = await call<{ monitor: { id: number; network: boolean } }>(
      "/api/v1/phone/monitors",
      json({ name: "Live", phones: [number], cadence: "weekly", network: true }, auth),
    );
    expect([created.status, created.body.data.monitor.network]).toEqual([201, true]);
    const id = created.body.data.monitor.id;
    const first = await call<{ summary: Record<string, unknown> }>(`/api/v1/phone/monitors/${id}/run`, json({}, auth));
    expect(first.body.data.summary).toMatchObject({ checked: 1, new_baselines: 1, credits_used: 2 });
    // Eight days later the checked answer is past its repeat window: the run asks the partner again.
    const row = (await monitorById(env, id))!;
    const later = await runMonitor(env, phone, row, { now: Date.now() + 8 * 86_400_000 });
    expect(later.summary).toMatchObject({ checked: 1, changed: 1, credits_used: 2 });
    expect(later.flags).toEqual({ [number]: ["carrier_changed"] });
    expect(await callsFor("twilio", number)).toBe(2);
    const patched = await call<{ monitor: { network: boolean } }>(
      `/api/v1/phone/monitors/${id}`,
      json({ network: false }, auth, "PATCH"),
    );
    expect(patched.body.data.monitor.network).toBe(false);
  });

  it("never compares an allocation holder with a live network", () => {
    const seen = {
      valid: true,
      line_type: "mobile",
      carrier: "EE",
      carrier_source: "allocation",
      location: null,
      disposable: false,
      undelivered: false,
    };
    expect(flags(seen, { ...seen, carrier: "Vodafone", carrier_source: "network" })).toEqual([]);
    expect(
      flags({ ...seen, carrier_source: "network" }, { ...seen, carrier: "Vodafone", carrier_source: "network" }),
    ).toEqual(["carrier_changed"]);
  });
});

describe("phone bulk runs with network: true", () => {
  it("checks each distinct number once across the run's rows and bills checked rows 2", async () => {
    const acct = await createAccount({ pack: 20 });
    const [a, b] = [us("0000"), us("0300")];
    const auth = bearer(acct.key).headers as Record<string, string>;
    const created = await call<{ job: { id: number } }>(
      "/api/v1/phone/bulk",
      json({ phones: [a, b, a, { phone: a.slice(2), country: "US" }], network: true }, auth),
    );
    expect(created.status).toBe(202);
    const keys = [acct.key, await anotherKey(acct), await anotherKey(acct)];
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 240; i++) {
      job = (
        await call<{ job: Record<string, unknown> }>(
          `/api/v1/phone/bulk/${created.body.data.job.id}`,
          bearer(keys[i % keys.length]!),
        )
      ).body.data.job;
      if (!["queued", "processing"].includes(job.status as string)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(job).toMatchObject({ status: "completed", processed: 4, valid: 4, mobile: 3, voip: 1, credits_used: 4 });
    expect([await callsFor("twilio", a), await callsFor("twilio", b)]).toEqual([1, 1]);
  });
});
