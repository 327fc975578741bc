import { describe, expect, it, vi } from "vitest";
import { INVITATION_LIMITS } from "../../src/engines/mail/sign-in";
import { LIMITS } from "../../src/limits/limiter";
import { Browser, signedUpOwner, signInByMail, uniqueEmail } from "../dashboard-browser";
import { caughtFor, waitForMail } from "../mail-catcher";

/**
 * Invitations mailed strangers without limit (40 invitations to 40 outside addresses in 7.5 s, from an unconfirmed
 * account too; found by the second attack). Only confirmed accounts invite; an account has a daily limit, a recipient
 * has one across accounts, and the inviter's text in the mail is bounded (docs/dashboard.md, "Accounts, members and
 * roles").
 */
vi.setConfig({ testTimeout: 60_000 });

const invite = (browser: Browser, email: string) =>
  browser.submit("/dashboard/members", "/dashboard/members", { email, role: "member" });
const members = async (browser: Browser) => (await (await browser.fetch("/dashboard/members")).text()).length;

describe("invitations", () => {
  it("an unconfirmed account cannot invite: 403, nobody added, nothing mailed", async () => {
    const browser = new Browser();
    const email = uniqueEmail("unconfirmed-owner");
    await browser.submit("/dashboard/sign-up", "/dashboard/sign-up", { email });
    await waitForMail(email);
    await signInByMail(browser, email, 2);
    const before = await members(browser);
    const stranger = uniqueEmail("stranger");
    const refused = await invite(browser, stranger);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("Confirm");
    expect(await members(browser)).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 500)); // a mail would have been queued by now
    expect(await caughtFor(stranger)).toEqual([]);
  });

  it(`an account invites at most ${LIMITS.invitationsAccount.limit} a day, then 429 with Retry-After`, async () => {
    const { browser } = await signedUpOwner("inviter");
    const statuses: number[] = [];
    for (let i = 0; i <= LIMITS.invitationsAccount.limit; i++)
      statuses.push((await invite(browser, uniqueEmail(`outsider-${i}`))).status);
    expect(statuses).toEqual([...Array(LIMITS.invitationsAccount.limit).fill(200), 429]);
    const refused = await invite(browser, uniqueEmail("one-more"));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it(`a recipient is invited at most ${LIMITS.invitationsRecipient.limit} times a day, whoever invites`, async () => {
    const [first, second] = await Promise.all([signedUpOwner("first-inviter"), signedUpOwner("second-inviter")]);
    const stranger = uniqueEmail("popular");
    const statuses: number[] = [];
    for (let i = 0; i <= LIMITS.invitationsRecipient.limit; i++) {
      const owner = i % 2 === 0 ? first : second;
      statuses.push((await invite(owner.browser, stranger)).status);
      // Removed again, so the next invitation is a new one rather than "already a member".
      const page = await (await owner.browser.fetch("/dashboard/members")).text();
      const row = new RegExp(`${stranger.replace(/[.+-]/g, "\\$&")}[^]*?/dashboard/members/([^/"]+)/remove`);
      const userId = row.exec(page)?.[1];
      if (userId) await owner.browser.submit("/dashboard/members", `/dashboard/members/${userId}/remove`);
    }
    expect(statuses).toEqual([...Array(LIMITS.invitationsRecipient.limit).fill(200), 429]);
  });

  it(`the inviter's address in the mail is at most ${INVITATION_LIMITS.inviterChars} characters`, async () => {
    const long = `${"x".repeat(48)}${Date.now()}@${"sub-domain-label.".repeat(8)}example.com`;
    const browser = new Browser();
    await browser.submit("/dashboard/sign-up", "/dashboard/sign-up", { email: long });
    const [confirmation] = await waitForMail(long);
    await browser.fetch(/https:\/\/verify\.test(\/mail\/confirm\/[0-9A-Za-z]+)/.exec(confirmation!.text)![1]!);
    await signInByMail(browser, long, 2);
    const stranger = uniqueEmail("reader");
    expect((await invite(browser, stranger)).status).toBe(200);
    const [mail] = await waitForMail(stranger);
    expect(mail!.text).not.toContain(long);
    const lead = mail!.text.split("\n")[0]!;
    expect(lead.length).toBeLessThanOrEqual(INVITATION_LIMITS.inviterChars + 80);
  });
});
