import { env, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { type Browser, signedUpOwner } from "../../dashboard-browser";
import { accountObject } from "../../helpers";

vi.setConfig({ testTimeout: 30_000 });

/**
 * The Stripe stand-in's payment page (test/fixtures/stripe-checkout.ts) against the real Worker: the dashboard's
 * Checkout lands on it, Pay signs `checkout.session.completed` with the webhook secret and returns to the dashboard,
 * Cancel returns and sends nothing. This project's Worker has no address the stand-in could post to, so its signed
 * events are read from `GET /events` and posted through SELF, byte for byte with the stand-in's own signature.
 */
const standIn = env.STRIPE_API_URL;

/** An event as the stand-in's `GET /events` lists it (SentEvent of test/fixtures/stripe-checkout.ts, a Node file). */
interface SentEvent {
  id: string;
  session: string;
  payload: string;
  signature: string;
}

async function checkout(browser: Browser, item = "pack_1000") {
  const answer = await browser.submit("/dashboard/account", "/dashboard/account/checkout", { item });
  expect(answer.status).toBe(303);
  const url = answer.headers.get("Location")!;
  expect(url).toMatch(new RegExp(`^${standIn}/c/pay/cs_test_\\w+$`));
  return { url, id: url.split("/").pop()! };
}

const click = async (url: string, button: "pay" | "cancel") => {
  const response = await fetch(`${url}/${button}`, { method: "POST", redirect: "manual" });
  expect(response.status).toBe(303);
  return response.headers.get("Location")!;
};

const eventsOf = async (session: string) =>
  ((await (await fetch(`${standIn}/events`)).json()) as SentEvent[]).filter((event) => event.session === session);

/** What Stripe's delivery would do: the stand-in's payload and signature, as they are, to `/stripe/webhook`. */
const relay = async (event: SentEvent) => {
  const response = await SELF.fetch("https://api.test/stripe/webhook", {
    method: "POST",
    headers: { "Stripe-Signature": event.signature, "Content-Type": "application/json" },
    body: event.payload,
  });
  return [response.status, ((await response.json()) as { outcome?: string }).outcome];
};

async function ownerWithAccount(label: string) {
  const { browser } = await signedUpOwner(label);
  const response = await browser.fetch("/dashboard/account");
  const page = await response.text();
  const accountId = /\((acc_[0-9A-Za-z_]+)\)/.exec(page)![1]!;
  const csp = response.headers.get("Content-Security-Policy") ?? "";
  return { browser, page, csp, accountId, before: await accountObject(accountId).snapshot() };
}

describe("paying on the Stripe stand-in's page", () => {
  it("the buy buttons and the payment page show the price Stripe holds", async () => {
    const { browser, page, csp } = await ownerWithAccount("price");
    // The buy form's redirect goes to the stand-in: Chromium checks form-action on it.
    expect(csp).toContain(`form-action 'self' https://checkout.stripe.com ${standIn};`);
    expect(page).toContain("Buy 1,000 credits ($10)");
    expect(page).toContain("Buy Growth: 10,000 credits a month ($49 a month)");
    const { url } = await checkout(browser);
    const payment = await (await fetch(url)).text();
    expect(payment).toContain('<h1 id="item">1,000 credits</h1>');
    expect(payment).toContain("Pay $10</button>");
    expect(payment).toContain("Cancel</button>");
  });

  it("Pay signs the completed session, returns to the dashboard, and the pack's credits arrive, exactly", async () => {
    const { browser, accountId, before } = await ownerWithAccount("pay");
    const { url, id } = await checkout(browser);
    expect(await click(url, "pay")).toBe("https://api.test/dashboard/account?purchase=done");
    const [event] = await eventsOf(id);
    expect(JSON.parse(event!.payload)).toMatchObject({
      type: "checkout.session.completed",
      data: { object: { id, payment_status: "paid", metadata: { account_id: accountId, item: "pack_1000" } } },
    });
    expect(await relay(event!)).toEqual([200, "pack_credited"]);
    const after = await accountObject(accountId).snapshot();
    expect([after.pack_credits - before.pack_credits, after.available - before.available]).toEqual([1000, 1000]);
    const back = await (await browser.fetch("/dashboard/account?purchase=done")).text();
    expect(back).toContain(`${before.pack_credits + 1000} pack credits, ${before.available + 1000} available`);
  });

  it("Cancel returns to the dashboard, sends no event, and credits nothing", async () => {
    const { browser, accountId, before } = await ownerWithAccount("cancel");
    const { url, id } = await checkout(browser);
    expect(await click(url, "cancel")).toBe("https://api.test/dashboard/account?purchase=cancelled");
    expect(await eventsOf(id)).toEqual([]);
    expect(await accountObject(accountId).snapshot()).toMatchObject({
      pack_credits: before.pack_credits,
      available: before.available,
    });
    const back = await (await browser.fetch("/dashboard/account?purchase=cancelled")).text();
    expect(back).toContain("The purchase was cancelled; nothing was charged.");
  });

  it("Pay clicked twice announces the session twice (two event ids) and credits it once", async () => {
    const { browser, accountId, before } = await ownerWithAccount("twice");
    const { url, id } = await checkout(browser);
    await Promise.all([click(url, "pay"), click(url, "pay")]);
    const events = await eventsOf(id);
    expect(new Set(events.map((event) => event.id)).size).toBe(2);
    const outcomes = await Promise.all(events.map(relay));
    expect(outcomes.map(([, outcome]) => outcome).sort()).toEqual(["pack_already_credited", "pack_credited"]);
    const after = await accountObject(accountId).snapshot();
    expect(after.pack_credits - before.pack_credits).toBe(1000);
    const { rows } = await accountObject(accountId).ledger(1, 100);
    expect(rows.filter((row) => row.kind === "pack_credit")).toHaveLength(1);
  });
});
