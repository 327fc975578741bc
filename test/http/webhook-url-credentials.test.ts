import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bearer, call, createAccount, json, type Envelope, type TestAccount } from "../helpers";

/**
 * A webhook or callback URL that carries a user name or password (`https://user:pass@host/`) is refused where it is
 * given: 422 VALIDATION_FAILED naming the field, nothing created or changed, nothing charged, and the credentials are
 * never stored or echoed back (a monitor would show its webhook_url to every key of the account).
 */
const WITH_CREDENTIALS = [
  "https://user:secret@hooks.example/in",
  "https://user@hooks.example/in",
  "https://:secret@hooks.example/in",
];

const post = (acct: TestAccount, path: string, body: Record<string, unknown>, method = "POST") =>
  call(`/api/v1${path}`, json(body, { Authorization: `Bearer ${acct.key}` }, method));

async function expectRefused(answer: { status: number; body: Envelope }, field: string) {
  expect(answer.status).toBe(422);
  expect(answer.body.error.code).toBe("VALIDATION_FAILED");
  expect(Object.keys(answer.body.error.errors!)).toEqual([field]);
  expect(answer.body.error.errors![field]).toEqual(["Must not carry a user name or password."]);
  expect(JSON.stringify(answer.body)).not.toContain("secret@");
}

const balance = async (acct: TestAccount) =>
  (await call<{ credits: { total: number } }>("/api/v1/account", bearer(acct.key))).body.data;

describe("webhook URLs with credentials are refused wherever a webhook URL is accepted", () => {
  it.each(WITH_CREDENTIALS)("POST /webhooks/test refuses %s with nothing sent", async (url) => {
    const acct = await createAccount();
    await expectRefused(await post(acct, "/webhooks/test", { url, event: "bulk_email_job.finished" }), "url");
  });

  it.each(WITH_CREDENTIALS)("POST /email refuses callback_url %s before any lookup, nothing charged", async (url) => {
    const acct = await createAccount({ pack: 5 });
    const before = await balance(acct);
    await expectRefused(
      await post(acct, "/email", { email: "someone@example.com", callback_url: url, callback_secret: "s".repeat(16) }),
      "callback_url",
    );
    expect(await balance(acct)).toEqual(before);
  });

  it.each([
    ["email", { emails: ["someone@example.com"] }],
    ["ip", { ips: ["8.8.8.8"] }],
  ] as const)("POST /%s/bulk refuses a webhook_url with credentials and creates no run", async (product, inputs) => {
    const acct = await createAccount({ pack: 5 });
    for (const url of WITH_CREDENTIALS)
      await expectRefused(await post(acct, `/${product}/bulk`, { ...inputs, webhook_url: url }), "webhook_url");
    const runs = await call<{ jobs: unknown[] }>(`/api/v1/${product}/bulk`, bearer(acct.key));
    expect(runs.body.data.jobs).toEqual([]);
  });

  it.each([
    ["email/monitors", { emails: ["someone@example.com"] }],
    ["email/domain-monitors", { domains: ["example.com"] }],
    ["ip/monitors", { ips: ["8.8.8.8"] }],
  ] as const)("POST /%s refuses a webhook_url with credentials and creates no monitor", async (path, entries) => {
    const acct = await createAccount({ pack: 5 });
    for (const url of WITH_CREDENTIALS) {
      await expectRefused(
        await post(acct, `/${path}`, { name: "Watch", cadence: "weekly", ...entries, webhook_url: url }),
        "webhook_url",
      );
    }
    const list = await call<{ monitors: unknown[] }>(`/api/v1/${path}`, bearer(acct.key));
    expect(list.body.data.monitors).toEqual([]);
  });

  it("PATCH of a monitor refuses a webhook_url with credentials and keeps the one it had", async () => {
    const acct = await createAccount({ pack: 5 });
    const hook = `${env.RECEIVER_URL}/ok/credentials-${crypto.randomUUID()}`;
    const created = await post(acct, "/email/monitors", {
      name: "Watch",
      cadence: "weekly",
      emails: ["someone@example.com"],
      webhook_url: hook,
    });
    expect(created.status).toBe(201);
    const id = (created.body.data as { monitor: { id: number } }).monitor.id;
    for (const url of WITH_CREDENTIALS)
      await expectRefused(await post(acct, `/email/monitors/${id}`, { webhook_url: url }, "PATCH"), "webhook_url");
    const after = await call<{ monitor: { webhook_url: string } }>(`/api/v1/email/monitors/${id}`, bearer(acct.key));
    expect(after.body.data.monitor.webhook_url).toBe(hook);
  });

  it("a URL without credentials (an @ only in the path or query) is still accepted", async () => {
    const acct = await createAccount({ pack: 5 });
    const created = await post(acct, "/email/monitors", {
      name: "Watch",
      cadence: "weekly",
      emails: ["someone@example.com"],
      webhook_url: `${env.RECEIVER_URL}/ok/a@b?to=c@d`,
    });
    expect(created.status).toBe(201);
  });
});
