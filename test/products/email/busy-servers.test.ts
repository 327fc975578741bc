import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EmailResult } from "../../../src/products/email/result";
import { accountObject, createAccount, lookupEmail, mailStats } from "../../helpers";
import { deliveredAt, receivedAt } from "../../webhook-receiver";

// A 421 is read by whom it is about (docs/email.md, "Mailbox replies"): the stand-in's 127.0.0.6 greets every client
// with postscreen's "421 4.3.2 All server ports are busy" (busy for everyone), 127.0.0.7 with anvil's "421 4.7.0 ...
// too many connections from 127.0.0.1" (a limit on the prober). The first is `provider_unavailable` and re-checked on
// the normal schedule, the second `blocked` with the back-off; both are unverified and free.

const UNCERTAIN = { deliverable: "risky", reason: "unverified", smtp_checked: false, mailbox_exists: null };
const connections = (ip: string) => mailStats().then((s) => s.sessions.filter((x) => x.ip === ip).length);

describe("a 421 of a server busy for everyone", () => {
  it("is provider_unavailable, free, and leaves the server un-backed-off: the next lookup asks it again", async () => {
    const acct = await createAccount({ pack: 5 });
    const before = await connections("127.0.0.6");
    const { body } = await lookupEmail<EmailResult>(acct.key, { email: "someone@busy.example" });
    expect(body.data).toMatchObject({ ...UNCERTAIN, smtp_reason: "provider_unavailable", catch_all: null });
    expect(body.meta.credits_used).toBe(0);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(5);
    expect(await connections("127.0.0.6")).toBe(before + 1);
    const other = await createAccount({ pack: 5 });
    const { body: again } = await lookupEmail<EmailResult>(other.key, { email: "else@busy.example" });
    expect(again.data.smtp_reason).toBe("provider_unavailable");
    expect(await connections("127.0.0.6")).toBe(before + 2);
  });
});

describe("a 421 for the client", () => {
  it("is blocked, free, and backs the server off: the next lookup is answered without dialling", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<EmailResult>(acct.key, { email: "someone@connlimit.example" });
    expect(body.data).toMatchObject({ ...UNCERTAIN, smtp_reason: "blocked", catch_all: null });
    expect(body.meta.credits_used).toBe(0);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(5);
    const dialled = await connections("127.0.0.7");
    const other = await createAccount({ pack: 5 });
    const { body: again } = await lookupEmail<EmailResult>(other.key, { email: "else@connlimit.example" });
    expect(again.data.smtp_reason).toBe("blocked");
    expect(await connections("127.0.0.7")).toBe(dialled);
  });
});

describe("re-checks (callback_url; RECHECK_DELAYS_S is 1,1 in tests)", () => {
  const callback = (path: string) => ({
    callback_url: `${env.RECEIVER_URL}${path}`,
    callback_secret: "callback-secret-0123456789",
  });

  it("a busy server is re-checked at both delays: two more connections, then settled false", {
    timeout: 30_000,
  }, async () => {
    const acct = await createAccount({ pack: 5 });
    const path = `/ok/busy-${crypto.randomUUID()}`;
    const before = await connections("127.0.0.6");
    const { body } = await lookupEmail<EmailResult>(acct.key, { email: "chain@busy.example", ...callback(path) });
    expect(body.meta).toMatchObject({ settling: true, credits_used: 0 });
    const [delivery] = await deliveredAt(path, 1, 20_000);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      settled: false,
      attempt: 2,
      data: { ...UNCERTAIN, smtp_reason: "provider_unavailable" },
      meta: { credits_used: 0 },
    });
    // The lookup and both re-checks each asked the server.
    expect(await connections("127.0.0.6")).toBe(before + 3);
    expect(await receivedAt(path)).toHaveLength(1);
  });

  it("a client 421 gets only the re-check after the back-off, which dials nothing", { timeout: 30_000 }, async () => {
    const acct = await createAccount({ pack: 5 });
    const path = `/ok/connlimit-${crypto.randomUUID()}`;
    const { body } = await lookupEmail<EmailResult>(acct.key, { email: "chain@connlimit.example", ...callback(path) });
    expect(body.meta).toMatchObject({ settling: true, credits_used: 0 });
    const dialled = await connections("127.0.0.7");
    const [delivery] = await deliveredAt(path, 1, 20_000);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      settled: false,
      attempt: 2,
      data: { ...UNCERTAIN, smtp_reason: "blocked" },
      meta: { credits_used: 0 },
    });
    expect(await connections("127.0.0.7")).toBe(dialled);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await receivedAt(path)).toHaveLength(1);
  });
});
