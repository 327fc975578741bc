import { env, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { billing } from "../../../src/surfaces/dashboard/billing/config";
import { handleStripeWebhook } from "../../../src/surfaces/dashboard/billing/webhook";
import { accountObject } from "../../helpers";
import { signedUpOwner } from "../../dashboard-browser";
import { account, chargeRefunded, deliver, eventId, packCompleted } from "../../stripe-events";

vi.setConfig({ testTimeout: 30_000 });

const balance = async (accountId: string) => (await accountObject(accountId).snapshot()).pack_credits;

describe("Stripe webhooks: credits only from verified events, each applied once", () => {
  it("a bad or missing signature is refused (400) and grants nothing", async () => {
    const id = await account();
    const forged = await deliver(packCompleted(id, `pi_forged_${Date.now()}`), "whsec_someone_else");
    expect([forged.status, ((await forged.json()) as { received: boolean }).received]).toEqual([400, false]);
    const unsigned = await SELF.fetch("https://api.test/stripe/webhook", {
      method: "POST",
      body: JSON.stringify(packCompleted(id, "pi_x")),
    });
    expect(unsigned.status).toBe(400);
    expect(await balance(id)).toBe(0);
  });

  it("a paid pack credits the account once, however often the event is delivered", async () => {
    const id = await account();
    const event = packCompleted(id, `pi_once_${Date.now()}`);
    const first = await deliver(event);
    expect([first.status, await first.json()]).toEqual([200, { received: true, outcome: "pack_credited" }]);
    const replays = await Promise.all([deliver(event), deliver(event)]);
    expect(replays.map((r) => r.status)).toEqual([200, 200]);
    expect(await balance(id)).toBe(1000);
    const { rows } = await accountObject(id).ledger(1, 100);
    expect(rows.filter((row) => row.kind === "pack_credit")).toHaveLength(1);
  });

  it("a refund takes back the refunded share of what is left; a replayed refund takes nothing more", async () => {
    const id = await account();
    const paymentIntent = `pi_refund_${Date.now()}`;
    await deliver(packCompleted(id, paymentIntent, 2000));
    const half = chargeRefunded(paymentIntent, { amount: 2000, refunded: 1000 });
    expect(await (await deliver(half)).json()).toEqual({ received: true, outcome: "refunded" });
    await deliver(half);
    expect(await balance(id)).toBe(500);
    const rest = chargeRefunded(paymentIntent, { amount: 2000, refunded: 2000 });
    await deliver(rest);
    expect(await balance(id)).toBe(0);
  });

  it(
    "a plan bought by Checkout starts the plan; a failed renewal stops its grants; a paid renewal restores " + "it",
    async () => {
      const id = await account();
      const customer = `cus_${Date.now()}`;
      const completed = {
        id: eventId(),
        type: "checkout.session.completed",
        data: {
          object: {
            id: "cs_plan",
            object: "checkout.session",
            mode: "subscription",
            payment_status: "paid",
            metadata: { account_id: id, item: "growth" },
            customer,
            subscription: "sub_1",
            payment_intent: null,
            amount_total: 4900,
          },
        },
      };
      expect(await (await deliver(completed)).json()).toEqual({ received: true, outcome: "plan_started" });
      expect((await accountObject(id).snapshot()).plan).toBe("growth");
      const invoice = (type: string) => ({
        id: eventId(),
        type,
        data: { object: { id: `in_${type}`, object: "invoice", customer, billing_reason: "subscription_cycle" } },
      });
      expect(await (await deliver(invoice("invoice.payment_failed"))).json()).toEqual({
        received: true,
        outcome: "renewal_failed",
      });
      expect((await accountObject(id).snapshot()).plan_status).toBe("cancelled");
      expect(await (await deliver(invoice("invoice.paid"))).json()).toEqual({ received: true, outcome: "renewed" });
      expect((await accountObject(id).snapshot()).plan_status).toBe("active");
    },
  );

  it("without the Stripe secrets purchases are off: the webhook answers 503 and nothing is configured", async () => {
    const off = { ...env, STRIPE_SECRET_KEY: "", STRIPE_WEBHOOK_SECRET: "" } as Env;
    expect(billing(off)).toBeNull();
    expect(await handleStripeWebhook(off, "{}", "t=1,v1=00")).toEqual({
      status: 503,
      error: "Purchases are off: no Stripe secrets are configured.",
    });
  });
});

describe("Stripe Checkout from the dashboard", () => {
  it(
    "an owner's purchase goes to Stripe Checkout (303) with the account and item in metadata; nothing is credited " +
      "yet",
    async () => {
      const { browser } = await signedUpOwner("checkout");
      const page = await (await browser.fetch("/dashboard/account")).text();
      expect(page).toContain("Buy 1,000 credits");
      const answer = await browser.submit("/dashboard/account", "/dashboard/account/checkout", { item: "pack_1000" });
      expect(answer.status).toBe(303);
      // The stand-in's own payment page (test/fixtures/stripe-checkout.ts), where Stripe's hosted page would be.
      expect(answer.headers.get("Location")).toMatch(new RegExp(`^${env.STRIPE_API_URL}/c/pay/cs_test_`));
      const sessions = (await (await fetch(`${env.STRIPE_API_URL}/sessions`)).json()) as {
        url: string;
        mode: string;
        metadata: Record<string, string>;
        form: Record<string, string>;
      }[];
      const mine = sessions.find((s) => s.url === answer.headers.get("Location"))!;
      expect(mine.mode).toBe("payment");
      expect(mine.metadata.item).toBe("pack_1000");
      expect(mine.form["payment_intent_data[metadata][credits]"]).toBe("1000");
      expect(mine.form["line_items[0][price]"]).toBe("price_pack_1000");
      expect(await balance(mine.metadata.account_id!)).toBe(0);
    },
  );
});
