import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailedLink, newEmail, newSession, paidAddressCsv, SHOTS, testAddressCsv } from "./dashboard-helpers";
import { base, browser as executablePath, stripeUrl } from "./stack";

interface Usage {
  days: number[];
  products: string[];
  requests: Record<string, number[]>;
}
const BULK_ROWS = 100;
/** Paid rows of the run that outgrows the free plan's 100 credits. */
const PAID_ROWS = 104;

/** What the usage charts are drawn from (the page's `data-usage`): the requests of the window, per product. */
async function chartedRequests(page: Page, product: string) {
  const usage = JSON.parse((await page.locator("#usage-charts").getAttribute("data-usage")) ?? "{}") as Usage;
  return (usage.requests[product] ?? []).reduce((a, b) => a + b, 0);
}

/**
 * The path a new customer takes, in headless Chromium against the local stack (`npm run dev`'s Worker, mail recorded
 * by the operator API, Stripe's API a local stand-in): each `it` is one step and leaves a screenshot in
 * test-results/e2e/dashboard/. The steps share one browser context and run in order.
 */
describe.skipIf(!executablePath)("a new customer in the dashboard", () => {
  let browser: Browser;
  let session: Awaited<ReturnType<typeof newSession>>;
  let page: Page;
  const email = newEmail("customer");
  let secretKey = "";
  let chartedBefore = 0;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: executablePath!, headless: true });
    session = await newSession(browser, "customer");
    page = session.page;
  });
  afterAll(async () => {
    if (session) console.log(`[e2e] dashboard screenshots (${SHOTS}):\n  ${session.shots.join("\n  ")}`);
    await browser?.close();
  });

  it("signs up from the front door", async () => {
    await page.goto(`${base}/`);
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/sign-in`);
    await session.shot("sign-in-page");
    await page.getByRole("link", { name: "Sign up" }).click();
    await page.getByLabel("Email address").fill(email);
    await session.shot("sign-up-form");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Check your inbox");
    await session.shot("check-inbox");
  });

  it("confirms the address from the link in the confirmation mail; its button signs this browser in", async () => {
    const path = await mailedLink(email, /https?:\/\/\S+\/mail\/confirm\/[0-9A-Za-z]+/);
    const response = await page.goto(`${base}${path}`);
    expect(response?.status()).toBe(200);
    await session.shot("address-confirmed");
    // No second mail: the confirmation page's button signs in and lands on the keys page.
    await page.getByRole("button", { name: "Continue to the dashboard" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/keys`);
    expect(await page.locator("body").textContent()).toContain("No keys yet.");
    await session.shot("signed-in");
  });

  it("a mail link survives sign-in: signed out, the page asked for is where the sign-in link lands", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/sign-in`);
    // An alert mail's link to a monitor, opened signed out.
    await page.goto(`${base}/dashboard/monitors?new=entity`);
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/sign-in?next=%2Fdashboard%2Fmonitors%3Fnew%3Dentity`);
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Check your inbox");
    const path = await mailedLink(email, /https?:\/\/\S+\/dashboard\/sign-in\/link\/[0-9A-Za-z]+\S*/);
    await page.goto(`${base}${path}`);
    await session.shot("sign-in-link-page");
    await page.getByRole("button", { name: "Continue to the dashboard" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/monitors?new=entity`);
    await session.shot("signed-in-where-asked");
  });

  it("creates a secret key on the keys page and sees it once", async () => {
    await page.goto(`${base}/dashboard/keys`);
    await page.getByRole("button", { name: "Create secret key" }).click();
    secretKey = ((await page.locator("#new-key").textContent()) ?? "").trim();
    expect(secretKey).toMatch(/^sk_live_[0-9A-Za-z]+$/);
    await session.shot("key-created");
    await page.goto(`${base}/dashboard/keys`);
    expect(await page.locator("#new-key").count()).toBe(0);
    expect(await page.content()).not.toContain(secretKey);
    // The usage page before any lookup: the chart the later step sees move.
    await page.goto(`${base}/dashboard/usage`);
    chartedBefore = await chartedRequests(page, "email");
    await session.shot("usage-before");
  });

  it("runs a lookup from the try-it form and sees its answer", async () => {
    await page.goto(`${base}/dashboard/try`);
    const form = page.locator("#try-email");
    await form.getByLabel(/^Secret key of this account/).fill(secretKey);
    await form.getByLabel("Request body (JSON)").fill(JSON.stringify({ email: "deliverable@service.test" }));
    await form.getByRole("button", { name: "Run one email lookup" }).click();
    const answer = page.locator("#try-answer");
    await expect.poll(() => answer.getAttribute("data-status")).toBe("200");
    const envelope = JSON.parse((await page.locator("#try-envelope").textContent()) ?? "{}");
    expect(envelope.success).toBe(true);
    expect(envelope.data).toMatchObject({ email: "deliverable@service.test", deliverable: "deliverable" });
    expect(envelope.meta.request_id).toMatch(/^req_/);
    // The answer's sources, as a table beside the envelope.
    expect(await page.locator("#try-sources td").first().textContent()).toBe(envelope.data.sources[0].dataset);
    await session.shot("try-it-answer");
  });

  it(`uploads a ${BULK_ROWS}-row CSV on the bulk page and watches the progress reach 100 %`, async () => {
    const file = join(SHOTS, "bulk-input.csv");
    writeFileSync(file, testAddressCsv(BULK_ROWS));
    await page.goto(`${base}/dashboard/bulk`);
    const form = page.locator("form#bulk-upload");
    await form.locator("select[name=product]").selectOption("email");
    await form.locator("input[name=file]").setInputFiles(file);
    await form.locator("input[name=column]").fill("email");
    await form.locator("input[name=key]").fill(secretKey);
    await session.shot("bulk-upload-form");
    await form.locator("button[type=submit], input[type=submit]").first().click();
    const progress = page.locator("progress#run-progress");
    await progress.waitFor();
    await session.shot("bulk-run-started");
    // Rendered while the run goes: cancel shown, the download hidden until the page script sees the run settle.
    const download = page.locator("a#download-results");
    const settledAtFirst = !["queued", "processing"].includes((await page.locator("#run-status").textContent()) ?? "");
    if (!settledAtFirst) expect(await download.isVisible()).toBe(false);
    // The bar as the page updates it while the run works: every value seen, in order, until the run completes.
    const seen: number[] = [];
    await expect
      .poll(
        async () => {
          seen.push(Number(await progress.getAttribute("value")));
          return page.locator("#run-status").textContent();
        },
        { timeout: 45_000, interval: 100 },
      )
      .toContain("completed");
    expect(await progress.getAttribute("max")).toBe(String(BULK_ROWS));
    expect(await progress.getAttribute("value")).toBe(String(BULK_ROWS));
    seen.push(BULK_ROWS);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    console.log(`[e2e] bulk progress values seen: ${[...new Set(seen)].join(", ")} of ${BULK_ROWS}`);
    // The same page, not reloaded: the script showed the download and hid cancel when the run completed.
    await expect.poll(() => download.isVisible(), { timeout: 5_000 }).toBe(true);
    expect(await page.locator("#run-cancel").isVisible()).toBe(false);
    console.log(`[e2e] download hidden at first render: ${!settledAtFirst}; shown without reload: true`);
    await session.shot("bulk-run-completed");
  });

  it("downloads the results: one row per input row", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("a#download-results").click()]);
    const saved = join(SHOTS, "bulk-results.csv");
    await download.saveAs(saved);
    const lines = readFileSync(saved, "utf8").trimEnd().split(/\r?\n/);
    expect(lines.length - 1).toBe(BULK_ROWS); // a header, then the rows
    expect(lines.slice(1).filter((line) => line.includes("@service.test"))).toHaveLength(BULK_ROWS);
  });

  it("sees the usage chart move: its data counts the lookups just made", async () => {
    // Request records reach the log through the queue: reload until they have.
    await expect
      .poll(
        async () => {
          await page.goto(`${base}/dashboard/usage`);
          return chartedRequests(page, "email");
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBeGreaterThan(chartedBefore);
    await expect.poll(() => page.locator(".chart[data-drawn=true]").count()).toBe(3);
    expect(Number(await page.locator('#usage-totals tr[data-product="email"] td').nth(1).textContent())).toBe(
      await chartedRequests(page, "email"),
    );
    await session.shot("usage-after");
  });

  it("cancels on the local payment page: back on the account page, nothing credited", async () => {
    await page.goto(`${base}/dashboard/account`);
    await session.shot("account-before-purchase");
    await page.getByRole("button", { name: "Buy 1,000 credits ($10)" }).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`^${stripeUrl}/c/pay/cs_test_`));
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/account?purchase=cancelled`);
    expect(await page.locator(".notice").first().textContent()).toContain("nothing was charged");
    expect(await page.locator("#balance").textContent()).toContain(" 0 pack credits");
  });

  it("a run larger than the credits stops, says so with a Buy link, and goes on by itself once bought", async () => {
    const file = join(SHOTS, "bulk-paid-input.csv");
    writeFileSync(file, paidAddressCsv(PAID_ROWS, `paid-${Date.now()}`));
    await page.goto(`${base}/dashboard/bulk`);
    const form = page.locator("form#bulk-upload");
    await form.locator("select[name=product]").selectOption("email");
    await form.locator("input[name=file]").setInputFiles(file);
    await form.locator("input[name=key]").fill(secretKey);
    await form.locator("button[type=submit], input[type=submit]").first().click();
    await page.locator("progress#run-progress").waitFor();
    const runUrl = page.url();
    expect(await page.locator("h1").textContent()).toBe("Bulk run #2"); // the account's second run
    await expect
      .poll(() => page.locator("#run-status").textContent(), { timeout: 120_000, interval: 500 })
      .toBe("completed");
    // The free plan's 100 credits paid for 100 rows; the page says why it stopped and where to buy.
    expect(await page.locator("#run-processed").textContent()).toBe(`100 / ${PAID_ROWS}`);
    await expect.poll(() => page.locator("#run-stop-credits").isVisible()).toBe(true);
    await session.shot("bulk-run-stopped-for-credits");
    await page.getByRole("link", { name: "Buy credits" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/account#credits`);
    await page.getByRole("button", { name: "Buy 1,000 credits ($10)" }).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`^${stripeUrl}/c/pay/cs_test_`));
    const payment = page.url();
    expect(await page.locator("#item").textContent()).toBe("1,000 credits");
    expect(await page.locator("#price").textContent()).toBe("$10");
    await session.shot("local-payment-page");
    // The stand-in posts the signed checkout.session.completed to /stripe/webhook before it sends the browser back;
    // the run that stopped for credits is resumed by it.
    await page.getByRole("button", { name: "Pay $10" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/dashboard/account?purchase=done`);
    expect(await page.locator("#runs-after-payment").textContent()).toContain("Run #2");
    await session.shot("payment-returned");
    await page.goto(runUrl);
    await expect
      .poll(() => page.locator("#run-processed").textContent(), { timeout: 60_000, interval: 500 })
      .toBe(`${PAID_ROWS} / ${PAID_ROWS}`);
    await expect.poll(() => page.locator("#run-status").textContent()).toBe("completed");
    expect(await page.locator("#run-stop-credits").isVisible()).toBe(false);
    const used = Number(await page.locator("#run-credits").textContent());
    await session.shot("bulk-run-resumed");
    await page.goto(`${base}/dashboard/account`);
    expect(await page.locator("#balance").textContent()).toContain(` ${1000 - (used - 100)} pack credits`);
    // The payment page opened again is paid: nothing more to pay.
    await page.goto(payment);
    expect(await page.locator("#paid").textContent()).toBe("Paid. Nothing more to pay.");
    expect(await page.getByRole("button", { name: "Pay $10" }).count()).toBe(0);
  });

  it("the usage page's ledger links each row to what made it: the bulk run's page", async () => {
    await page.goto(`${base}/dashboard/usage`);
    const bulk = page.locator('#ledger a[data-made-by="bulk_run"]').first();
    await bulk.click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`^${base}/dashboard/bulk/runs/\\d+$`));
    expect(await page.locator("h1").textContent()).toMatch(/^Bulk run #\d+$/);
    await page.goto(`${base}/dashboard/usage`);
    await page.locator('#ledger a[data-made-by="payment"]').first().click();
    expect(await page.locator("h1").textContent()).toBe("Payment");
    await page.goto(`${base}/dashboard/usage`);
    await session.shot("usage-ledger-links");
  });

  it("creates a monitor, runs it now with refresh, and lands on the run's page (not the post's URL)", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/dashboard/monitors`);
    // The navigation is one line at 1280 px.
    expect((await page.locator("header nav").boundingBox())!.height).toBeLessThan(30);
    const form = page.locator("#new-monitor form");
    await form.getByLabel("Name").fill("Newsletter");
    await form.locator("textarea[name=entries]").fill("deliverable@service.test\nundeliverable@service.test");
    await form.getByRole("button", { name: "Create monitor" }).click();
    await expect.poll(() => page.url()).toMatch(/\/dashboard\/monitors\?created=\d+#monitor-email-\d+$/);
    const row = page.locator('tr[id^="monitor-email-"]').first();
    await row.getByLabel("refresh").check();
    await row.getByRole("button", { name: "Run now" }).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`^${base}/dashboard/monitors/runs/\\d+/\\d+$`));
    expect(await page.locator("#monitor-run-summary").textContent()).toBe(
      "Checked 2 entries: 1 deliverable, 0 risky, 1 undeliverable. Nothing changed against the baselines. " +
        "2 first baselines recorded. No credits used.",
    );
    // Times in the reader's zone, rewritten by the page script from the UTC the server wrote.
    await expect
      .poll(() => page.locator("#monitor-run time").first().textContent())
      .not.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    await session.shot("monitor-run");
    await page.goto(`${base}/dashboard/monitors`);
    await session.shot("monitors");
  });
});
