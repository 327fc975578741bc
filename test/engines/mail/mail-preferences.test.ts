import { env, SELF } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { database } from "../../../src/db/client";
import { mailMessages, mailPreferences, mailSuppressions } from "../../../src/db/schema";
import { consumeLink, issueLink } from "../../../src/engines/mail/links";
import { HOURLY_LIMITS, queueMail, type OutgoingMail } from "../../../src/engines/mail/outbox";
import { admin, BASE } from "../../helpers";
import { waitForMail } from "../../mail-catcher";

/** The recipient's preferences page (reached by the unsubscribe link of any optional mail) and the signed links. */
let sequence = 0;
async function account() {
  const email = `prefs-${Date.now()}-${++sequence}@example.com`;
  const { id } = await admin<{ id: string }>("POST", "/accounts", { email, email_verified: true });
  return { accountId: id, email };
}

const mail = (accountId: string, to: string, kind: string, optional = true): OutgoingMail => ({
  accountId,
  to,
  kind,
  subject: `A ${kind} message`,
  text: `About ${kind}.\n`,
  html: `<p>About ${kind}.</p>`,
  optional,
});

const fetchPage = (path: string, init: RequestInit = {}) => SELF.fetch(`${BASE}${path}`, init);
const statusOf = (id: string) =>
  vi.waitFor(
    async () => {
      const row = await database(env).select().from(mailMessages).where(eq(mailMessages.id, id)).get();
      if (!row || row.status === "pending") throw new Error("pending");
      return row;
    },
    { timeout: 10_000, interval: 50 },
  );

/** Opens the page as a browser would: its form token, and the cookie it must match. */
async function openPage(messageId: string) {
  const page = await fetchPage(`/mail/unsubscribe/${messageId}`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const token = /name="csrf" value="([0-9A-Za-z]+)"/.exec(html)?.[1];
  const cookie = /mail_prefs_csrf=([0-9A-Za-z]+)/.exec(page.headers.get("Set-Cookie") ?? "")?.[1];
  expect(page.headers.get("Set-Cookie")).toMatch(/HttpOnly/);
  expect(page.headers.get("Set-Cookie")).toMatch(/SameSite=Strict/);
  return { html, token: token!, cookie: cookie! };
}

function save(messageId: string, fields: { csrf?: string; kinds: string[] }, headers: Record<string, string>) {
  const body = new URLSearchParams();
  if (fields.csrf !== undefined) body.append("csrf", fields.csrf);
  for (const kind of fields.kinds) body.append("kinds", kind);
  return fetchPage(`/mail/preferences/${messageId}`, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
  });
}

describe("the preferences page", () => {
  it(
    "lists every optional kind for the recipient, all on; saving turns kinds off and the outbox honours it per " +
      "kind",
    async () => {
      const { accountId, email } = await account();
      const [alert] = await queueMail(env, [mail(accountId, email, "monitor_alert")]);
      const [caught] = await waitForMail(email);
      const link = /^<https:\/\/verify\.test(\/mail\/unsubscribe\/msg_[0-9A-Za-z]+)>$/.exec(
        caught!.headers["list-unsubscribe"]!,
      )![1]!;
      expect(link).toBe(`/mail/unsubscribe/${alert}`);
      const { html, token, cookie } = await openPage(alert!);
      expect(html).toContain(`Emails to <strong>${email}</strong>`);
      for (const kind of ["monitor_alert", "low_balance", "key_spend_cap", "bulk_finished"])
        expect(html).toContain(`value="${kind}" checked`);
      expect(html).not.toContain("account_confirmation");

      const saved = await save(
        alert!,
        { csrf: token, kinds: ["low_balance", "bulk_finished"] },
        { Cookie: `mail_prefs_csrf=${cookie}`, Origin: BASE },
      );
      expect(saved.status).toBe(200);
      const after = await saved.text();
      expect(after).toContain("Saved.");
      expect(after).toContain('value="low_balance" checked');
      expect(after).not.toContain('value="monitor_alert" checked');
      const off = await database(env)
        .select({ kind: mailPreferences.kind })
        .from(mailPreferences)
        .where(eq(mailPreferences.recipient, email));
      expect(off.map((o) => o.kind).sort()).toEqual(["key_spend_cap", "monitor_alert"]);

      const [blocked, allowed, required] = await queueMail(env, [
        mail(accountId, email, "monitor_alert"),
        mail(accountId, email, "low_balance"),
        mail(accountId, email, "account_confirmation", false),
      ]);
      expect(await statusOf(blocked!)).toMatchObject({
        status: "suppressed",
        detail: "recipient turned monitor_alert mail off",
        attempts: 0,
      });
      expect(await statusOf(allowed!)).toMatchObject({ status: "sent" });
      expect(await statusOf(required!)).toMatchObject({ status: "sent" });
    },
  );

  it("refuses a post from another site or without the page's token (403), and saves nothing", async () => {
    const { accountId, email } = await account();
    const [id] = await queueMail(env, [mail(accountId, email, "monitor_alert")]);
    const { token, cookie } = await openPage(id!);
    const attempts: [Record<string, string>, string | undefined][] = [
      [{ Cookie: `mail_prefs_csrf=${cookie}`, Origin: "https://evil.example" }, token],
      [{ Cookie: `mail_prefs_csrf=${cookie}` }, token], // no Origin, no Sec-Fetch-Site
      [{ Cookie: `mail_prefs_csrf=${cookie}`, "Sec-Fetch-Site": "cross-site" }, token],
      [{ Origin: BASE }, token], // the SameSite cookie was not sent
      [{ Cookie: `mail_prefs_csrf=${cookie}`, Origin: BASE }, "WrongToken"],
      [{ Cookie: `mail_prefs_csrf=${cookie}`, Origin: BASE }, undefined],
    ];
    for (const [headers, csrf] of attempts) {
      const refused = await save(id!, { csrf, kinds: [] }, headers);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain("Not saved");
    }
    expect(await database(env).select().from(mailPreferences).where(eq(mailPreferences.recipient, email))).toEqual([]);
    // The link's own origin (MAIL_BASE_URL) is this site too.
    expect(
      (
        await save(
          id!,
          { csrf: token, kinds: [] },
          { Cookie: `mail_prefs_csrf=${cookie}`, Origin: "https://verify.test" },
        )
      ).status,
    ).toBe(200);
  });

  it("answers 404 for an id that names no optional message (a required message, or none)", async () => {
    const { accountId, email } = await account();
    const [required] = await queueMail(env, [mail(accountId, email, "account_confirmation", false)]);
    expect((await fetchPage(`/mail/unsubscribe/${required}`)).status).toBe(404);
    expect((await fetchPage("/mail/unsubscribe/msg_nothing")).status).toBe(404);
    expect((await save("msg_nothing", { csrf: "x", kinds: [] }, { Origin: BASE })).status).toBe(404);
  });

  it("shows a one-click unsubscribe; ticking a kind afterwards lifts it, a bounce suppression stays", async () => {
    const { accountId, email } = await account();
    const [id] = await queueMail(env, [mail(accountId, email, "monitor_alert")]);
    await fetchPage(`/mail/unsubscribe/${id}`, {
      method: "POST",
      body: "List-Unsubscribe=One-Click",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    const { html, token, cookie } = await openPage(id!);
    expect(html).toContain("unsubscribed from every optional email");
    expect(html).not.toContain("checked");
    await save(id!, { csrf: token, kinds: ["monitor_alert"] }, { Cookie: `mail_prefs_csrf=${cookie}`, Origin: BASE });
    expect(
      await database(env).select().from(mailSuppressions).where(eq(mailSuppressions.recipient, email)).get(),
    ).toBeUndefined();

    await database(env)
      .insert(mailSuppressions)
      .values({ recipient: email, reason: "550 mailbox unavailable", createdAt: Date.now() });
    const again = await openPage(id!);
    expect(again.html).toContain("refused for good");
    await save(
      id!,
      { csrf: again.token, kinds: ["monitor_alert"] },
      { Cookie: `mail_prefs_csrf=${again.cookie}`, Origin: BASE },
    );
    expect(
      await database(env)
        .select()
        .from(mailSuppressions)
        .where(and(eq(mailSuppressions.recipient, email)))
        .get(),
    ).toMatchObject({ reason: "550 mailbox unavailable" });
  });
});

describe("hourly limits of the new kinds", () => {
  it("low_balance: at most 2 an hour per account and recipient; beyond it recorded as suppressed", async () => {
    const { accountId, email } = await account();
    expect(HOURLY_LIMITS).toMatchObject({ low_balance: 2, key_spend_cap: 10, bulk_finished: 30 });
    const ids = await queueMail(
      env,
      [1, 2, 3].map(() => mail(accountId, email, "low_balance")),
    );
    expect(ids).toHaveLength(2);
    const rows = await database(env)
      .select()
      .from(mailMessages)
      .where(and(eq(mailMessages.accountId, accountId), eq(mailMessages.status, "suppressed")));
    expect(rows.map((r) => r.detail)).toEqual(["hourly limit for this kind of message reached"]);
  });
});

describe("signed links", () => {
  it("sign_in links work once, only for their own purpose, and name their recipient", async () => {
    const { accountId, email } = await account();
    const token = await issueLink(env, {
      purpose: "sign_in",
      accountId,
      recipient: email.toUpperCase(),
      ttlMs: 60_000,
    });
    expect(token).toMatch(/^[0-9A-Za-z]{44}$/);
    expect(await consumeLink(env, "confirm_email", token)).toEqual({ ok: false, reason: "unknown" });
    expect(await consumeLink(env, "sign_in", token)).toEqual({ ok: true, accountId, recipient: email });
    expect(await consumeLink(env, "sign_in", token)).toEqual({ ok: false, reason: "used", accountId });
    const late = await issueLink(env, { purpose: "sign_in", accountId, recipient: email, ttlMs: 60_000 });
    expect(await consumeLink(env, "sign_in", late, Date.now() + 61_000)).toEqual({
      ok: false,
      reason: "expired",
      accountId,
    });
  });

  it("concurrent uses of one link: exactly one succeeds", async () => {
    const { accountId, email } = await account();
    const token = await issueLink(env, { purpose: "sign_in", accountId, recipient: email, ttlMs: 60_000 });
    const results = await Promise.all(Array.from({ length: 5 }, () => consumeLink(env, "sign_in", token)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it("a token signed with another secret is unknown", async () => {
    const { accountId, email } = await account();
    const token = await issueLink(
      { ...env, MAIL_LINK_SECRET: "another-secret-of-at-least-32-characters" },
      { purpose: "sign_in", accountId, recipient: email, ttlMs: 60_000 },
    );
    expect(await consumeLink(env, "sign_in", token)).toEqual({ ok: false, reason: "unknown" });
  });
});
