import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../../../src/db/client";
import { accounts, mailLinks, mailSuppressions } from "../../../src/db/schema";
import { issueLink } from "../../../src/engines/mail/links";
import { queueMail } from "../../../src/engines/mail/outbox";
import { admin, BASE, bearer, call } from "../../helpers";
import { waitForMail } from "../../mail-catcher";
import { fetchChecked } from "../../openapi-check";

let sequence = 0;
const address = () => `confirm-${Date.now()}-${++sequence}@example.com`;

/** An unconfirmed account with a member's key, as the operator creates it: the confirmation mail goes out at once. */
async function unconfirmedAccount() {
  const email = address();
  const { id } = await admin<{ id: string }>("POST", "/accounts", { email, email_verified: false, plan: "enterprise" });
  const member = await admin<{ user_id: string }>("POST", `/accounts/${id}/members`, { email: address() });
  const { key } = await admin<{ key: string }>("POST", `/accounts/${id}/keys/secret`, {
    user_id: member.user_id,
    scopes: ["account"],
  });
  return { id, email, key };
}

const accountCall = (key: string) => call("/api/v1/account", bearer(key, { "CF-Connecting-IP": "198.51.100.77" }));
const follow = (url: string, init: RequestInit = {}) => fetchChecked(url.replace("https://verify.test", BASE), init);
const confirmLink = (text: string) => /https:\/\/verify\.test\/mail\/confirm\/[0-9A-Za-z]+/.exec(text)?.[0];

describe("account email confirmation by mail", () => {
  it("mails a single-use link on creation; following it makes the keys work at once", async () => {
    const acct = await unconfirmedAccount();
    expect((await accountCall(acct.key)).body.error.code).toBe("EMAIL_NOT_VERIFIED");
    const [mail] = await waitForMail(acct.email);
    expect(mail!.subject).toBe("Confirm your email address");
    expect(mail!.to).toEqual([acct.email]);
    expect(mail!.headers["list-unsubscribe"]).toBeUndefined();
    const link = confirmLink(mail!.text);
    expect(link).toBeDefined();
    expect(mail!.html).toContain(`<a href="${link}">`);
    expect(mail!.text).not.toContain(acct.key);

    const confirmed = await follow(link!);
    expect(confirmed.status).toBe(200);
    const shown = await confirmed.text();
    expect(shown).toContain("Email address confirmed");
    // The dashboard's look and a way into it.
    expect(shown).toContain('<link rel="stylesheet" href="/dashboard/assets/app.css"/>');
    expect(shown).toContain('<a href="/dashboard/keys">');
    expect((await accountCall(acct.key)).status).toBe(200);

    // Single use: the link does nothing more, and says the address is confirmed.
    const again = await follow(link!);
    expect([again.status, (await again.text()).includes("already confirmed")]).toEqual([200, true]);
  });

  it("an expired link answers 410 and confirms nothing; an unknown one 404", async () => {
    const acct = await unconfirmedAccount();
    await waitForMail(acct.email);
    const expired = await issueLink(
      env,
      { purpose: "confirm_email", accountId: acct.id, recipient: acct.email, ttlMs: 1_000 },
      Date.now() - 10_000,
    );
    const stale = await follow(`https://verify.test/mail/confirm/${expired}`);
    expect(stale.status).toBe(410);
    expect((await accountCall(acct.key)).body.error.code).toBe("EMAIL_NOT_VERIFIED");
    const unknown = await follow("https://verify.test/mail/confirm/NotAToken123");
    expect(unknown.status).toBe(404);
    // Both lead to the dashboard's account page, where a new link is sent, in the dashboard's look.
    for (const page of [await stale.text(), await unknown.text()]) {
      expect(page).toContain('<link rel="stylesheet" href="/dashboard/assets/app.css"/>');
      expect(page).toContain('<a href="/dashboard/account">Sign in to the dashboard</a>');
    }
  });

  it(
    "a link is signed: its row changed without the secret (expiry pushed back) or a forged signature confirms " +
      "nothing (404)",
    async () => {
      const acct = await unconfirmedAccount();
      const link = confirmLink((await waitForMail(acct.email))[0]!.text)!;
      const token = link.slice(link.lastIndexOf("/") + 1);
      expect(token).toMatch(/^[0-9A-Za-z]{44}$/);
      const forged = token.slice(0, 22) + (token[22] === "A" ? "B" : "A") + token.slice(23);
      expect((await follow(`https://verify.test/mail/confirm/${forged}`)).status).toBe(404);
      const [row] = await database(env).select().from(mailLinks).where(eq(mailLinks.accountId, acct.id));
      await database(env)
        .update(mailLinks)
        .set({ expiresAt: row!.expiresAt + 1 })
        .where(eq(mailLinks.accountId, acct.id));
      expect((await follow(link)).status).toBe(404);
      await database(env).update(mailLinks).set({ expiresAt: row!.expiresAt }).where(eq(mailLinks.accountId, acct.id));
      // The forged tries did not use the link up: the real one still works, once.
      expect((await follow(link)).status).toBe(200);
      expect((await accountCall(acct.key)).status).toBe(200);
    },
  );

  it(
    "a link is bound to the address it was sent to: once the account's address changed, it confirms " + "nothing",
    async () => {
      const acct = await unconfirmedAccount();
      const link = confirmLink((await waitForMail(acct.email))[0]!.text)!;
      await database(env).update(accounts).set({ email: address() }).where(eq(accounts.id, acct.id));
      expect((await follow(link)).status).toBe(404);
      expect((await accountCall(acct.key)).body.error.code).toBe("EMAIL_NOT_VERIFIED");
    },
  );

  it(
    "the operator can send a new link (201), not to a confirmed account (422); a confirmed account gets no " + "mail",
    async () => {
      const acct = await unconfirmedAccount();
      await waitForMail(acct.email);
      const resent = await admin<{ message_id: string }>("POST", `/accounts/${acct.id}/confirmation-email`);
      expect(resent.message_id).toMatch(/^msg_/);
      const [, second] = await waitForMail(acct.email, 2);
      await follow(confirmLink(second!.text)!);
      expect((await accountCall(acct.key)).status).toBe(200);
      const refused = await call(`/admin/v1/accounts/${acct.id}/confirmation-email`, {
        method: "POST",
        headers: { Authorization: "Bearer test-admin-token" },
      });
      expect([refused.status, refused.body.error.code]).toEqual([422, "VALIDATION_FAILED"]);

      const verified = await admin<{ id: string }>("POST", "/accounts", { email: address(), email_verified: true });
      const { messages } = await admin<{ messages: unknown[] }>("GET", `/mail?account_id=${verified.id}`);
      expect(messages).toEqual([]);
    },
  );
});

describe("unsubscribe links", () => {
  it(
    "GET shows a form, POST (one-click) suppresses the recipient of an optional message; a required message's id is " +
      "404",
    async () => {
      const acct = await unconfirmedAccount();
      const [required] = await queueMail(env, [
        {
          accountId: acct.id,
          kind: "test_notice",
          to: acct.email,
          subject: "s",
          text: "t",
          html: "<p>t</p>",
          optional: false,
        },
      ]);
      const [optional] = await queueMail(env, [
        {
          accountId: acct.id,
          kind: "test_notice",
          to: acct.email,
          subject: "s",
          text: "t",
          html: "<p>t</p>",
          optional: true,
        },
      ]);
      const page = await follow(`https://verify.test/mail/unsubscribe/${optional}`);
      const html = await page.text();
      expect([page.status, html.includes('method="post"')]).toEqual([200, true]);
      // The dashboard's look: its stylesheet and the narrow column of its signed-out pages.
      expect(html).toContain('<link rel="stylesheet" href="/dashboard/assets/app.css">');
      expect(html).toContain('<main class="narrow">');
      expect(
        await database(env).select().from(mailSuppressions).where(eq(mailSuppressions.recipient, acct.email)).get(),
      ).toBeUndefined();
      const done = await follow(`https://verify.test/mail/unsubscribe/${optional}`, {
        method: "POST",
        body: "List-Unsubscribe=One-Click",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
      expect(done.status).toBe(200);
      expect(await done.text()).toContain('<link rel="stylesheet" href="/dashboard/assets/app.css">');
      expect(
        await database(env).select().from(mailSuppressions).where(eq(mailSuppressions.recipient, acct.email)).get(),
      ).toMatchObject({ reason: "unsubscribed" });
      expect((await follow(`https://verify.test/mail/unsubscribe/${required}`, { method: "POST" })).status).toBe(404);
    },
  );
});
