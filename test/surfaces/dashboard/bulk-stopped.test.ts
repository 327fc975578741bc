/**
 * A bulk run that stops for lack of credits (docs/dashboard.md, "Bulk runs"): its page says so with a Buy link, it goes
 * on by itself when credits arrive, the payment's return page offers it, what it put on the suppression list is
 * counted and shown, and runs are numbered within their account.
 */
import { describe, expect, it, vi } from "vitest";
import { Browser, uniqueEmail } from "../../dashboard-browser";
import { admin, bearer, call, json } from "../../helpers";

vi.setConfig({ testTimeout: 90_000 });

/** An account of `pack` credits (no monthly grant), its owner signed in, and a secret key. */
async function smallAccount(pack: number) {
  const email = uniqueEmail("stopped");
  const account = await admin<{ id: string }>("POST", "/accounts", { email, email_verified: true, plan: "enterprise" });
  if (pack) await admin("POST", `/accounts/${account.id}/credits`, { bucket: "pack", amount: pack });
  const member = await admin<{ user_id: string }>("POST", `/accounts/${account.id}/members`, { email });
  const { key } = await admin<{ key: string }>("POST", `/accounts/${account.id}/keys/secret`, {
    user_id: member.user_id,
  });
  const { url } = await admin<{ url: string }>("POST", `/accounts/${account.id}/sign-in-link`, { email });
  const browser = new Browser();
  const link = new URL(url).pathname;
  const signedIn = await browser.submit(link, link);
  expect(signedIn.status).toBe(303);
  return { accountId: account.id, key, browser };
}

interface Progress {
  job: { status: string; processed: number; total: number; stopped_reason: string | null; credits_used: number };
  suppressed_added: number;
}

const progress = async (browser: Browser, id: number) =>
  (await (await browser.fetch(`/dashboard/bulk/runs/${id}/progress`)).json()) as Progress;

/** Waits until the run's progress satisfies `done`. */
const until = (browser: Browser, id: number, done: (p: Progress) => boolean) =>
  vi.waitFor(
    async () => {
      const now = await progress(browser, id);
      if (!done(now)) throw new Error(`run ${id}: ${JSON.stringify(now)}`);
      return now;
    },
    { timeout: 60_000, interval: 250 },
  );

const hiddenOf = (html: string, id: string) =>
  /\shidden(="[^"]*")?[\s>]/.test(new RegExp(`<p id="${id}"[^>]*>`).exec(html)![0]);

describe("dashboard: a bulk run stopped for credits", () => {
  it("says so with a Buy link, counts what it suppressed, and goes on by itself when credits arrive", async () => {
    const { accountId, key, browser } = await smallAccount(2);
    const run = Date.now();
    // Two undeliverable verdicts (no MX: free, suppressed by the API's rules), then three paid answers for 2 credits.
    const emails = [
      `gone1-${run}@nullmx.example`,
      `gone2-${run}@nullmx.example`,
      ...[1, 2, 3].map((n) => `paid${n}-${run}@catchall.example`),
    ];
    const started = await call<{ job: { id: number } }>(
      "/api/v1/email/bulk",
      json({ emails }, bearer(key).headers as Record<string, string>),
    );
    const id = started.body.data.job.id;
    const stopped = await until(browser, id, (p) => p.job.status === "completed");
    expect(stopped.job).toMatchObject({
      stopped_reason: "insufficient_credits",
      processed: 4,
      total: 5,
      credits_used: 2,
    });
    expect(stopped.suppressed_added).toBe(2);

    const html = await (await browser.fetch(`/dashboard/bulk/runs/${id}`)).text();
    expect(html).toContain("<title>Bulk run #1 · Verification API</title>");
    expect(hiddenOf(html, "run-stop-credits")).toBe(false);
    expect(html).toContain('<a href="/dashboard/account#credits">Buy credits</a>');
    expect(hiddenOf(html, "run-stop-cap")).toBe(true);
    expect(hiddenOf(html, "run-suppressed")).toBe(false);
    expect(html).toContain('<span id="run-suppressed-count">2</span>');
    expect(html).toContain('href="/dashboard/suppressions?product=email"');
    const listed = await (await browser.fetch("/dashboard/suppressions?product=email")).text();
    expect(listed).toContain(`gone1-${run}@nullmx.example`);

    // The payment's return page offers the stopped run in one click.
    const returned = await (await browser.fetch("/dashboard/account?purchase=done")).text();
    expect(returned).toContain(`<form method="post" action="/dashboard/bulk/runs/${id}/resume"`);

    // Credits arrive (an operator's grant here; a Stripe payment takes the same path): the run goes on by itself.
    await admin("POST", `/accounts/${accountId}/credits`, { bucket: "pack", amount: 5 });
    const finished = await until(browser, id, (p) => p.job.status === "completed" && p.job.processed === 5);
    expect(finished.job).toMatchObject({ stopped_reason: null, credits_used: 3 });
    expect(finished.suppressed_added).toBe(2);
    const after = await (await browser.fetch(`/dashboard/bulk/runs/${id}`)).text();
    expect(hiddenOf(after, "run-stop-credits")).toBe(true);
    // A short remainder finishes before the browser is back from paying: the return page still names the run.
    const back = await (await browser.fetch("/dashboard/account?purchase=done")).text();
    expect(back).toContain(`<a href="/dashboard/bulk/runs/${id}">Run #1</a> is completed.`);
  });

  it("counts runs per account: each account's first run is #1, its second #2", async () => {
    const [one, two] = [await smallAccount(0), await smallAccount(0)];
    const start = async (key: string) =>
      (
        await call<{ job: { id: number } }>(
          "/api/v1/email/bulk",
          json({ emails: ["deliverable@service.test"] }, bearer(key).headers as Record<string, string>),
        )
      ).body.data.job.id;
    const first = await start(one.key);
    const other = await start(two.key);
    const second = await start(one.key);
    const title = async (browser: Browser, id: number) =>
      /<title>(Bulk run #\d+)/.exec(await (await browser.fetch(`/dashboard/bulk/runs/${id}`)).text())?.[1];
    expect(await title(one.browser, first)).toBe("Bulk run #1");
    expect(await title(two.browser, other)).toBe("Bulk run #1");
    expect(await title(one.browser, second)).toBe("Bulk run #2");
    const list = await (await one.browser.fetch("/dashboard/bulk")).text();
    expect(list).toContain(`<a href="/dashboard/bulk/runs/${second}">#2</a>`);
  });
});
