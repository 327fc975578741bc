/**
 * `network: true` on POST /consistency (docs/consistency.md, "Live line type"): the phone signal is checked by the
 * network partner's stand-in (test/fixtures/partners.ts, Twilio: a number's last four digits say what it does), and
 * `phone_line_not_virtual` is decided on the live line type. Each case checks the answer, the credits and the calls.
 */
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { resetBreakers } from "../../../src/platform/partners/guard";
import { bearer, call, createAccount, json } from "../../helpers";

beforeEach(() => resetBreakers());

let exchange = 600;
/** A fresh valid US number (the plan reads `fixed_line_or_mobile`) ending in `tail`. */
const us = (tail: string) => `+1650${++exchange}${tail}`;

type Answer = {
  signals: { phone: Record<string, unknown> };
  checks: { name: string; result: string; reason: string; decided_by: Record<string, unknown> }[];
  score: number | null;
  reason: string | null;
  sources: { dataset: string; version: string }[];
};
const consistency = (key: string, body: Record<string, unknown>) =>
  call<Answer>("/api/v1/consistency", json(body, bearer(key).headers as Record<string, string>));
const lineCheck = (data: Answer) => data.checks.find((c) => c.name === "phone_line_not_virtual")!;

async function twilioCalls(e164: string): Promise<number> {
  const stats = (await (await fetch(`${env.PARTNERS_URL}/stats`)).json()) as Record<string, Record<string, number>>;
  return stats.twilio![e164] ?? 0;
}

describe("POST /api/v1/consistency with network: true", () => {
  it("decides phone_line_not_virtual on the live line type, names its source and the partner; 2 credits", async () => {
    const acct = await createAccount({ pack: 10 });
    const phone = us("0000");
    const { status, body } = await consistency(acct.key, { phone, ip: "192.0.2.1", network: true });
    expect(status).toBe(200);
    expect(body.data.signals.phone).toMatchObject({ line_type: "mobile", line_type_source: "network" });
    expect(lineCheck(body.data)).toEqual({
      name: "phone_line_not_virtual",
      result: "agree",
      weight: 2,
      decided_by: { "phone.line_type": "mobile", "phone.line_type_source": "network" },
      reason: "subscriber_line",
    });
    expect(body.data).toMatchObject({ score: 100, reason: null });
    expect(Date.parse(body.data.sources.find((s) => s.dataset === "twilio-lookup")!.version)).not.toBeNaN();
    expect(body.meta).toMatchObject({ credits_used: 2, credits_remaining: 8, cache_hit: false });
    expect(await twilioCalls(phone)).toBe(1);
    // A repeat with the option within 7 days is the stored checked answer: free, no second partner call.
    const again = await consistency(acct.key, { phone, ip: "192.0.2.1", network: true });
    expect(again.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 8, cache_hit: true });
    expect(again.body.data.signals.phone.line_type_source).toBe("network");
    expect(await twilioCalls(phone)).toBe(1);
  });

  it("disagrees for a VoIP line the partner reports, which the plan cannot see", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await consistency(acct.key, { phone: us("0300"), ip: "192.0.2.1", network: true });
    expect(body.data.signals.phone).toMatchObject({ line_type: "voip", line_type_source: "network" });
    expect(lineCheck(body.data)).toMatchObject({ result: "disagree", reason: "voip_line" });
    // agree: phone~IP 2, ip_not_anonymous 3; disagree: the line 2.
    expect(body.data).toMatchObject({
      score: Math.round((100 * 5) / 7),
      risk_components: { phone_line_not_virtual: 20 },
    });
    expect(body.meta).toMatchObject({ credits_used: 2 });
  });

  it("answers a partner outage unchecked and free, with reason partner_unavailable", async () => {
    const acct = await createAccount({ pack: 10 });
    const phone = us("0500");
    const { status, body } = await consistency(acct.key, { phone, ip: "192.0.2.1", network: true });
    expect(status).toBe(200);
    expect(body.data.signals.phone).toMatchObject({
      line_type: "fixed_line_or_mobile",
      line_type_source: "numbering_plan",
    });
    expect(lineCheck(body.data)).toMatchObject({ result: "not_applicable", reason: "line_type_not_checked" });
    expect(body.data).toMatchObject({ score: 100, reason: "partner_unavailable" });
    expect(body.data.sources.filter((s) => s.dataset === "twilio-lookup")).toEqual([
      expect.objectContaining({ coverage: "none" }),
    ]);
    expect(body.meta).toMatchObject({ credits_used: 0, credits_remaining: 10 });
    expect(await twilioCalls(phone)).toBeGreaterThan(0);
    // No repeat window started: asking again calls the partner again.
    const calls = await twilioCalls(phone);
    await consistency(acct.key, { phone, ip: "192.0.2.1", network: true });
    expect(await twilioCalls(phone)).toBeGreaterThan(calls);
  });

  it("without the option: the plan's line type, the check not applicable, 1 credit, no partner call", async () => {
    const acct = await createAccount({ pack: 10 });
    const phone = us("0000");
    const { body } = await consistency(acct.key, { phone, ip: "192.0.2.1" });
    expect(body.data.signals.phone).toMatchObject({ line_type_source: "numbering_plan" });
    expect(lineCheck(body.data)).toMatchObject({ result: "not_applicable", reason: "line_type_not_checked" });
    expect(body.data.reason).toBeNull();
    expect(body.meta).toMatchObject({ credits_used: 1 });
    expect(await twilioCalls(phone)).toBe(0);
    // The option afterwards checks the unchecked repeat now, and bills the check.
    const checked = await consistency(acct.key, { phone, ip: "192.0.2.1", network: true });
    expect(checked.body.meta).toMatchObject({ credits_used: 2 });
    expect(await twilioCalls(phone)).toBe(1);
  });

  it("holds before calling: an account without credits is 402 and the partner is never asked", async () => {
    const acct = await createAccount({ pack: 0 });
    const phone = us("0000");
    const { status, body } = await consistency(acct.key, { phone, ip: "192.0.2.1", network: true });
    expect([status, (body as unknown as { error: { code: string } }).error.code]).toEqual([
      402,
      "INSUFFICIENT_CREDITS",
    ]);
    expect(await twilioCalls(phone)).toBe(0);
  });
});
