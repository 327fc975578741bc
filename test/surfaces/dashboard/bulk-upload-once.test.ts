/**
 * The upload form's one-time token (docs/dashboard.md, "Bulk runs"): made when the page is rendered, it is the bulk
 * request's Idempotency-Key, so the same form submitted twice lands on the same run, created and charged once.
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { type Browser, createSecretKey, signedUpOwner } from "../../dashboard-browser";
import { bearer, call } from "../../helpers";

vi.setConfig({ testTimeout: 60_000 });

const balance = async (key: string) =>
  (await call<{ balance: { total: number } }>("/api/v1/account", bearer(key))).body.data!.balance.total;

/** The hidden fields of the upload form as the page rendered them: the CSRF token and the form's own token. */
async function formTokens(browser: Browser) {
  const html = await (await browser.fetch("/dashboard/bulk")).text();
  const csrf = /name="_csrf" value="([0-9A-Za-z]+)"/.exec(html)![1]!;
  const upload = /<input type="hidden" name="upload_token" value="([0-9A-Za-z]+)"\/?>/.exec(html)?.[1];
  return { csrf, upload };
}

function post(browser: Browser, tokens: { csrf: string; upload?: string }, key: string, text: string) {
  const form = new FormData();
  form.set("_csrf", tokens.csrf);
  if (tokens.upload) form.set("upload_token", tokens.upload);
  form.set("product", "email");
  form.set("key", key);
  form.set("file", new File([text], "list.txt", { type: "text/plain" }));
  return browser.fetch("/dashboard/bulk", { method: "POST", body: form });
}

const runsOf = async (browser: Browser) =>
  ((await (await browser.fetch("/dashboard/bulk")).text()).match(/href="\/dashboard\/bulk\/runs\/\d+"/g) ?? []).length;

async function settledCredits(key: string, location: string) {
  const id = location.split("/").pop();
  for (let i = 0; i < 120; i++) {
    const job = (await call<{ job: { status: string; credits_used: number } }>(`/api/v1/email/bulk/${id}`, bearer(key)))
      .body.data.job;
    if (!["queued", "processing"].includes(job.status)) return job.credits_used;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`run ${id} did not settle`);
}

const LIST = "anything@catchall.example\nother@catchall.example\n";

describe("dashboard: a bulk upload submitted twice", () => {
  it("each render of the page carries a new token", async () => {
    const { browser } = await signedUpOwner("bulk-once-token");
    const [first, second] = [await formTokens(browser), await formTokens(browser)];
    expect(first.upload).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(second.upload).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(second.upload).not.toBe(first.upload);
  });

  it("one after the other: the same run page, one run created and charged", async () => {
    const { browser } = await signedUpOwner("bulk-once-serial");
    const key = await createSecretKey(browser, { scopes: ["account", "email"] });
    const before = await balance(key);
    const tokens = await formTokens(browser);
    const first = await post(browser, tokens, key, LIST);
    const second = await post(browser, tokens, key, LIST);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await runsOf(browser)).toBe(1);
    expect(await settledCredits(key, first.headers.get("Location")!)).toBe(2);
    expect(await balance(key)).toBe(before - 2);
    const { results } = await env.DB.prepare("SELECT idempotency_key FROM bulk_jobs WHERE id = ?")
      .bind(Number(first.headers.get("Location")!.split("/").pop()))
      .all<{ idempotency_key: string }>();
    expect(results[0]!.idempotency_key).toBe(`dashboard-upload-${tokens.upload}`);
  });

  it("both at once (a double click): the same run page, one run created and charged", async () => {
    const { browser } = await signedUpOwner("bulk-once-race");
    const key = await createSecretKey(browser, { scopes: ["account", "email"] });
    const before = await balance(key);
    const tokens = await formTokens(browser);
    const [first, second] = await Promise.all([post(browser, tokens, key, LIST), post(browser, tokens, key, LIST)]);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await runsOf(browser)).toBe(1);
    expect(await settledCredits(key, first.headers.get("Location")!)).toBe(2);
    expect(await balance(key)).toBe(before - 2);
  });

  it("a new render is a new run; the same token with another file is the API's 409, nothing started", async () => {
    const { browser } = await signedUpOwner("bulk-once-other");
    const key = await createSecretKey(browser, { scopes: ["account", "email"] });
    const tokens = await formTokens(browser);
    const first = await post(browser, tokens, key, LIST);
    const reused = await post(browser, tokens, key, "someone@catchall.example\n");
    expect(reused.status).toBe(409);
    expect(await reused.text()).toContain("HTTP 409 IDEMPOTENCY_KEY_REUSED");
    const again = await post(browser, await formTokens(browser), key, LIST);
    expect(again.status).toBe(303);
    expect(again.headers.get("Location")).not.toBe(first.headers.get("Location"));
    expect(await runsOf(browser)).toBe(2);
  });
});
