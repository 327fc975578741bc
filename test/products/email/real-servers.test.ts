import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EmailResult } from "../../../src/products/email/result";
import { mailboxConfidence } from "../../../src/products/email/score";
import { sharedRows } from "../../../src/products/email/store";
import { call, createAccount, accountObject, json, lookupEmail, mailStats, rcptCount } from "../../helpers";
import { deliveredAt, receivedAt } from "../../webhook-receiver";

// The mailbox check against the replies real mail servers give (the stand-in learns them: test/fixtures/smtp.ts):
// a catch-all that greylists, refusals of the prober, Postfix's error and recipient limits, and the free answers.

interface BatchItem {
  data: EmailResult;
  meta: { credits_used: number };
}

const batch = (key: string, body: Record<string, unknown>) =>
  call<{ results: BatchItem[] }>("/api/v1/email/batch", json(body, { Authorization: `Bearer ${key}` }));

const UNCERTAIN = { deliverable: "risky", reason: "unverified", smtp_checked: false, mailbox_exists: null };

describe("a catch-all that greylists", () => {
  it("an accepted address is unverified and free while the random one is greylisted, never deliverable", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<EmailResult>(acct.key, { email: "alice@greycatch.example" });
    expect(body.data).toMatchObject({ ...UNCERTAIN, catch_all: null, smtp_reason: "greylisted" });
    expect(body.meta.credits_used).toBe(0);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(5);
    // Asked again (refresh), the same random address passes greylisting: the domain takes any address.
    const refreshed = { email: "alice@greycatch.example", refresh: true };
    const { body: again } = await lookupEmail<EmailResult>(acct.key, refreshed);
    expect(again.data).toMatchObject({
      deliverable: "risky",
      reason: "catch_all",
      catch_all: true,
      mailbox_exists: null,
    });
    expect(again.meta.credits_used).toBe(1);
    const randoms = (await mailStats()).sessions
      .flatMap((s) => s.rcpts)
      .filter((r) => r.endsWith("@greycatch.example") && !r.startsWith("alice@"));
    expect(new Set(randoms).size).toBe(1);
  });
});

describe("refusals of the prober: smtp_reason blocked", () => {
  it.each([
    ["helo.example", 450, "Helo command rejected"],
    ["sender.example", 450, "Sender address rejected"],
  ])("%s: risky / unverified / blocked, free, no greylisting bonus", async (domain) => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<EmailResult>(acct.key, { email: `someone@${domain}` });
    expect(body.data).toMatchObject({ ...UNCERTAIN, smtp_reason: "blocked" });
    expect(body.meta.credits_used).toBe(0);
    expect(body.data.mailbox_confidence).toBe(mailboxConfidence(body.data));
    expect(body.data.mailbox_confidence).toBe(
      Math.round((mailboxConfidence({ ...body.data, smtp_reason: "greylisted" }) - 0.1) * 100) / 100,
    );
  });

  it("backs off the server: a per-client limit answers the whole batch blocked from one connection", async () => {
    const acct = await createAccount({ pack: 10 });
    const emails = Array.from({ length: 5 }, (_, i) => `user${i}@ratelimit.example`);
    const { body } = await batch(acct.key, { emails });
    expect(body.data.results.map((r) => r.data.smtp_reason)).toEqual(Array(5).fill("blocked"));
    expect(body.data.results.every((r) => r.meta.credits_used === 0)).toBe(true);
    const connections = () => mailStats().then((s) => s.sessions.filter((x) => x.ip === "127.0.0.4").length);
    const before = await connections();
    expect(before).toBe(1);
    // Inside the back-off nothing is dialled: another account's lookup is answered blocked at once.
    const other = await createAccount({ pack: 5 });
    const { body: single } = await lookupEmail<EmailResult>(other.key, { email: "later@ratelimit.example" });
    expect(single.data.smtp_reason).toBe("blocked");
    expect(await connections()).toBe(before);
  });

  it("skips the 5-minute re-check inside the back-off: one re-check, after it, then settled false", {
    timeout: 30_000,
  }, async () => {
    const acct = await createAccount({ pack: 5 });
    const path = `/ok/blocked-${crypto.randomUUID()}`;
    const callback = { callback_url: `${env.RECEIVER_URL}${path}`, callback_secret: "callback-secret-0123456789" };
    const { body } = await lookupEmail<EmailResult>(acct.key, { email: "chain@helo.example", ...callback });
    expect(body.meta).toMatchObject({ settling: true, credits_used: 0 });
    const [delivery] = await deliveredAt(path, 1, 20_000);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      settled: false,
      attempt: 2,
      data: { smtp_reason: "blocked" },
      meta: { credits_used: 0 },
    });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await receivedAt(path)).toHaveLength(1);
  });
});

describe("Postfix's limits", () => {
  it("answers 50 addresses, 60 % unknown, in full, every connection ending before the 10th error", async () => {
    const acct = await createAccount({ pack: 60 });
    const emails = Array.from({ length: 50 }, (_, i) => (i % 5 < 2 ? `ok-${i}` : `nobody-${i}`) + "@postfix.example");
    const { body } = await batch(acct.key, { emails, timeout: 60 });
    const verdicts = body.data.results.map((r) => r.data.deliverable);
    expect(verdicts.filter((v) => v === "deliverable")).toHaveLength(20);
    expect(verdicts.filter((v) => v === "undeliverable")).toHaveLength(30);
    expect(body.data.results.reduce((n, r) => n + r.meta.credits_used, 0)).toBe(20);
    const stats = await mailStats();
    const sessions = stats.sessions.filter((s) => s.ip === "127.0.0.5");
    expect(Math.max(...sessions.map((s) => s.errors))).toBeLessThanOrEqual(8);
    expect(sessions.length).toBe(Math.ceil(31 / 8));
    expect(stats.hardLimits).toBe(0);
  });

  it("meets a per-message recipient limit (452 4.5.3) with new transactions on the same connection", async () => {
    const acct = await createAccount({ pack: 10 });
    const emails = Array.from({ length: 8 }, (_, i) => `ok-${i}@rcptlimit.example`);
    const { body } = await batch(acct.key, { emails });
    expect(body.data.results.map((r) => r.data.deliverable)).toEqual(Array(8).fill("deliverable"));
    const sessions = (await mailStats()).sessions.filter((s) => s.domains.includes("rcptlimit.example"));
    expect(sessions).toHaveLength(1);
  });
});

describe("free uncertain answers", () => {
  it("are bounded per account and server: past 30 an hour it is not asked again for that account", async () => {
    const acct = await createAccount({ pack: 5 });
    const emails = Array.from({ length: 30 }, (_, i) => `bound${i}-${acct.accountId}@greylist.example`);
    await batch(acct.key, { emails });
    const probe = `past-${acct.accountId}@greylist.example`;
    const { body } = await lookupEmail<EmailResult>(acct.key, { email: probe });
    expect(body.data).toMatchObject({ ...UNCERTAIN, smtp_reason: "greylisted" });
    expect(body.meta.credits_used).toBe(0);
    expect(rcptCount(await mailStats(), probe)).toBe(0);
    // Another account is asked as before.
    const other = await createAccount({ pack: 5 });
    const fresh = `fresh-${other.accountId}@greylist.example`;
    await lookupEmail(other.key, { email: fresh });
    expect(rcptCount(await mailStats(), fresh)).toBe(1);
  });

  it("never shares a timeout or a block with another account", () => {
    const rows = sharedRows(
      new Map([
        ["a@x.example", { outcome: "timeout" as const, checkedAt: 1 }],
        ["b@x.example", { outcome: "blocked" as const, checkedAt: 1 }],
        ["c@x.example", { outcome: "greylisted" as const, checkedAt: 1 }],
      ]),
    );
    expect(rows.map((r) => r.email)).toEqual(["c@x.example"]);
  });
});
