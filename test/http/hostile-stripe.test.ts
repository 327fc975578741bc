import { describe, expect, it, vi } from "vitest";
import { creditsStub } from "../helpers";
import { account, chargeRefunded, deliver, eventId, packCompleted } from "../stripe-events";

/**
 * Stripe crediting was keyed by event id only (found by the second attack: two signed events for one payment credited
 * twice). A Checkout session credits once, and a refund is taken back once, whatever events announce them
 * (docs/billing.md, "Buying credits").
 */
vi.setConfig({ testTimeout: 30_000 });

const balance = async (accountId: string) => (await creditsStub(accountId).snapshot()).pack_credits;

describe("one payment moves credits once", () => {
  it("one Checkout session credits once whatever events announce it (new ids, async success)", async () => {
    const id = await account();
    const paymentIntent = `pi_twice_${Date.now()}`;
    const completed = packCompleted(id, paymentIntent);
    const again = { ...packCompleted(id, paymentIntent), id: eventId() };
    const asyncSucceeded = { ...packCompleted(id, paymentIntent), id: eventId() };
    asyncSucceeded.type = "checkout.session.async_payment_succeeded";
    expect(await (await deliver(completed)).json()).toEqual({ received: true, outcome: "pack_credited" });
    const later = await Promise.all([deliver(again), deliver(asyncSucceeded)]);
    expect(later.map((r) => r.status)).toEqual([200, 200]);
    expect(await balance(id)).toBe(1000);
    const { rows } = await creditsStub(id).ledger(1, 100);
    expect(rows.filter((row) => row.kind === "pack_credit")).toHaveLength(1);
  });

  it("two refund events announcing the same refunded amount, racing, take it back once", async () => {
    const id = await account();
    const paymentIntent = `pi_refund_race_${Date.now()}`;
    await deliver(packCompleted(id, paymentIntent, 2000));
    const refund = () => chargeRefunded(paymentIntent, { amount: 2000, refunded: 1000 });
    await Promise.all([deliver(refund()), deliver(refund())]);
    expect(await balance(id)).toBe(500);
  });
});
