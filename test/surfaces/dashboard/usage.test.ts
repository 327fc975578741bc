import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { productNames } from "../../../src/products/registry";
import { Browser, createSecretKey, signedUpOwner } from "../../dashboard-browser";
import { newRequestId } from "../../../src/http/request-id-format";
import { LIMITS } from "../../../src/limits/limiter";
import { freezeClock } from "../../frozen-clock";
import { accountObject, lookupEmail, recordStored, requestRecord } from "../../helpers";

vi.setConfig({ testTimeout: 30_000 });

const decode = (text: string) =>
  text
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
const usageData = (html: string) =>
  JSON.parse(decode(/data-usage="([^"]*)"/.exec(html)![1]!)) as {
    days: number[];
    products: string[];
    requests: Record<string, number[]>;
    answers: Record<string, number[]>;
    credits: Record<string, number[]>;
  };
const totals = (html: string, product: string) =>
  [
    ...new RegExp(`<tr data-product="${product}">(.*?)</tr>`).exec(html)![1]!.matchAll(/<td class="num">(\d+)<\/td>/g),
  ].map((m) => Number(m[1]));

/** A signed-up owner with one paid email lookup made through the API, its record stored in D1. */
async function ownerWithOneLookup(label: string) {
  const signedUp = await signedUpOwner(label);
  const { browser } = signedUp;
  const key = await createSecretKey(browser, { scopes: ["account", "email"] });
  const { body } = await lookupEmail<{ verdict: string }>(key, { email: "anything@catchall.example" });
  expect(body.meta?.credits_used).toBe(1);
  const requestId = String(body.meta?.request_id);
  expect((await requestRecord(key, requestId)).status).toBe(200);
  await recordStored(requestId);
  return { browser, key, requestId, signedUp };
}

describe("dashboard: the usage page", () => {
  it(
    "shows requests, answers and credits per day and per product " + "for 30 days, with the chart script and its data",
    async () => {
      const { browser } = await ownerWithOneLookup("usage");
      const response = await browser.fetch("/dashboard/usage");
      expect(response.status).toBe(200);
      expect(response.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
      const html = await response.text();
      expect(html).toContain('<script src="/dashboard/assets/usage.js">');
      expect(html).toContain('href="/dashboard/assets/uplot.css"');
      const usage = usageData(html);
      expect(usage.days).toHaveLength(30);
      expect(usage.days[29]).toBe(Math.floor(Date.now() / 86_400_000) * 86_400_000);
      // Every registered product, in registry order (a product joining the registry joins the page).
      expect(usage.products).toEqual(productNames());
      expect(usage.products.slice(0, 4)).toEqual(["email", "phone", "ip", "address"]);
      expect([usage.requests.email![29], usage.answers.email![29], usage.credits.email![29]]).toEqual([1, 1, 1]);
      expect(usage.requests.email!.slice(0, 29).every((n) => n === 0)).toBe(true);
      expect(totals(html, "email")).toEqual([1, 1, 1]);
      expect(totals(html, "phone")).toEqual([0, 0, 0]);
    },
  );

  it("the ledger names the product of a refund, as of the charge it gives back", async () => {
    const { signedUp, requestId } = await ownerWithOneLookup("refund");
    const account = await env.DB.prepare("SELECT id FROM accounts WHERE email = ?")
      .bind(signedUp.email)
      .first<{ id: string }>();
    expect(await accountObject(account!.id).refundRequest(requestId)).toMatchObject({ applied: true, credits: 1 });
    const html = await (await signedUp.browser.fetch("/dashboard/usage")).text();
    expect(html).toMatch(
      /<td>refund<\/td><td>email<\/td><td class="num">1<\/td><td class="num">0<\/td><td class="num">100<\/td>/,
    );
  });

  it("the ledger shows the charge with its request id, a page at a time", async () => {
    const { browser, requestId } = await ownerWithOneLookup("ledger");
    const html = await (await browser.fetch("/dashboard/usage")).text();
    const ledger = /<table id="ledger">(.*?)<\/table>/s.exec(html)![1]!;
    expect(ledger).toContain("monthly_grant");
    expect(ledger).toMatch(
      new RegExp(
        `<td>charge</td><td>email</td><td class="num">-1</td><td class="num">0</td><td class="num">99</td>` +
          `<td><a href="/dashboard/usage\\?request=${requestId}#request" data-made-by="request">` +
          `<code>${requestId}</code>`,
      ),
    );
    expect(html).toContain("Page 1 of 1 (2 entries)");
    const second = await (await browser.fetch("/dashboard/usage?page=2")).text();
    expect(second).toContain("No credit movements yet.");
    expect(second).toContain('<a rel="prev" href="/dashboard/usage?page=1#ledger">');
    expect(await (await browser.fetch("/dashboard/usage?page=x")).text()).toContain("Page 1 of 1");
  });

  it(
    "a request is looked up by its id (the data of GET " + "/account/requests/{id}); another account's is not found",
    async () => {
      const { browser, requestId } = await ownerWithOneLookup("request");
      const found = await browser.fetch(`/dashboard/usage?request=${requestId}`);
      expect(found.status).toBe(200);
      const record = /<table id="request-record">(.*?)<\/table>/s.exec(await found.text())![1]!;
      expect(record).toContain(`<code>${requestId}</code>`);
      expect(record).toContain("<code>POST /api/v1/email</code>");
      expect(record).toContain("<th>Status</th><td>200</td>");
      expect(record).toContain("<th>Credits used</th><td>1</td>");

      const other = await signedUpOwner("request-other");
      const foreign = await other.browser.fetch(`/dashboard/usage?request=${requestId}`);
      expect(foreign.status).toBe(404);
      const html = await foreign.text();
      expect(html).toContain(`No request ${requestId} in this account.`);
      expect(html).not.toContain('id="request-record"');
    },
  );

  it("looks requests up by id at most 30 a minute per user, then answers 429, a notice, Retry-After", async () => {
    const { browser } = await signedUpOwner("request-limit");
    const clock = freezeClock();
    try {
      const { limit, message } = LIMITS.requestLookupUser;
      expect(limit).toBe(30);
      for (let i = 0; i < limit; i++) {
        // performance.now(), not Date: the frozen clock stops Date, and a wait would then read as none.
        const started = performance.now();
        const made = await browser.fetch(`/dashboard/usage?request=${newRequestId()}`);
        // A made-up id is not waited for: one look, then "no request".
        expect([made.status, performance.now() - started < 1_000]).toEqual([404, true]);
      }
      const over = await browser.fetch(`/dashboard/usage?request=${newRequestId()}`);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
      const html = await over.text();
      expect(html).toContain(message);
      expect(html).not.toContain("No request");
      // The page itself is not limited: without `request=` it still answers.
      expect((await browser.fetch("/dashboard/usage")).status).toBe(200);
    } finally {
      clock.thaw();
    }
  });

  it("needs a session: the sign-in page, which keeps the page asked for", async () => {
    const response = await new Browser().fetch("/dashboard/usage?page=2");
    expect([response.status, response.headers.get("Location")]).toEqual([
      303,
      "/dashboard/sign-in?next=%2Fdashboard%2Fusage%3Fpage%3D2",
    ]);
  });
});
