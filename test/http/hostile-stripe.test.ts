import { describe, expect, it, vi } from "vitest";
import { accountObject } from "../helpers";
import { account, chargeRefunded, deliver, eventId, packCompleted } from "../stripe-events";

/**
 * Stripe crediting was keyed by event id only (found by the second attack: two signed events for one payment credited
 * twice). A Checkout session credits once, and a refund is taken back once, whatever events announce them
 * (docs/billing.md, "Buying credits").
 */
vi.setConfig({ testTimeout: 30_000 });

const balance = async (accountId: string) => (await accountObject(accountId).snapshot()).pack_credits;

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
    const { rows } = await accountObject(id).ledger(1, 100);
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

  it("two Checkout sessions naming one payment intent credit once, in one account or across two", async () => {
    const [id, other] = await Promise.all([account(), account()]);
    const paymentIntent = `pi_two_sessions_${Date.now()}`;
    const second = (accountId: string, suffix: string) => {
      const event = packCompleted(accountId, paymentIntent);
      event.data.object.id = `cs_test_${suffix}_${paymentIntent}`;
      return event;
    };
    expect(await (await deliver(packCompleted(id, paymentIntent))).json()).toMatchObject({ outcome: "pack_credited" });
    const later = await Promise.all([deliver(second(id, "again")), deliver(second(other, "elsewhere"))]);
    expect(await Promise.all(later.map((r) => r.json()))).toEqual([
      { received: true, outcome: "pack_already_credited" },
      { received: true, outcome: "pack_already_credited" },
    ]);
    expect([await balance(id), await balance(other)]).toEqual([1000, 0]);
  });
});

describe("a refund that arrives before its payment", () => {
  it("waits, and is taken back when the payment is credited (half of it: 500 credits of 1,000)", async () => {
    const id = await account();
    const paymentIntent = `pi_early_${Date.now()}`;
    const early = await deliver(chargeRefunded(paymentIntent, { amount: 2000, refunded: 1000 }));
    expect(await early.json()).toEqual({ received: true, outcome: "refund_awaits_payment" });
    expect(await balance(id)).toBe(0);
    expect(await (await deliver(packCompleted(id, paymentIntent, 2000))).json()).toMatchObject({
      outcome: "pack_credited",
    });
    expect(await balance(id)).toBe(500);
    const { rows } = await accountObject(id).ledger(1, 100);
    expect(rows.filter((row) => row.kind === "pack_credit").map((row) => row.pack_delta)).toEqual(
      expect.arrayContaining([1000, -500]),
    );
    // The refund's own event again, and then the rest of it: each takes only what its running total adds.
    await deliver(chargeRefunded(paymentIntent, { amount: 2000, refunded: 1000 }));
    expect(await balance(id)).toBe(500);
    await deliver(chargeRefunded(paymentIntent, { amount: 2000, refunded: 2000 }));
    expect(await balance(id)).toBe(0);
  });

  it("two early refunds keep the larger; a refund racing its payment is taken back once", async () => {
    const id = await account();
    const first = `pi_early_two_${Date.now()}`;
    await deliver(chargeRefunded(first, { amount: 2000, refunded: 1500 }));
    await deliver(chargeRefunded(first, { amount: 2000, refunded: 500 }));
    await deliver(packCompleted(id, first, 2000));
    expect(await balance(id)).toBe(250);
    const raced = `pi_early_race_${Date.now()}`;
    await Promise.all([
      deliver(chargeRefunded(raced, { amount: 2000, refunded: 1000 })),
      deliver(packCompleted(id, raced, 2000)),
    ]);
    expect(await balance(id)).toBe(750);
  });
});
