import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { database } from "../../../src/db/client";
import { mailLinks, mailMessages, mailSuppressions, memberships, users } from "../../../src/db/schema";
import {
  attemptMail,
  HOURLY_LIMITS,
  MAIL_ATTEMPTS,
  queueMail,
  type OutgoingMail,
} from "../../../src/engines/mail/outbox";
import { sweepMail, sweepMailLinks } from "../../../src/engines/mail/retention";
import { issueLink } from "../../../src/engines/mail/links";
import { sweepStalled } from "../../../workers/recovery";
import { admin, call, createAccount } from "../../helpers";
import { caughtFor, waitForMail } from "../../mail-catcher";

let sequence = 0;
/**
 * An account whose own address is `local@domain` (the catcher refuses bounce.test with 550, tempfail.test with 451).
 */
async function accountAt(domain = "example.com") {
  const email = `owner-${Date.now()}-${++sequence}@${domain}`;
  const account = await admin<{ id: string }>("POST", "/accounts", { email, email_verified: true });
  return { accountId: account.id, email };
}

const mail = (accountId: string, to: string, extra: Partial<OutgoingMail> = {}): OutgoingMail => ({
  accountId,
  to,
  kind: "test_notice",
  subject: "Réponse prête ✓",
  text: `Bonjour,\nvotre réponse est prête: https://verify.test/runs/1\n`,
  html: `<p>Bonjour,</p><p><a href="https://verify.test/runs/1">votre réponse</a> est prête.</p>`,
  optional: false,
  ...extra,
});

const row = (id: string) => database(env).select().from(mailMessages).where(eq(mailMessages.id, id)).get();
const settled = (id: string) =>
  vi.waitFor(
    async () => {
      const r = await row(id);
      if (!r || r.status === "pending") throw new Error("still pending");
      return r;
    },
    { timeout: 10_000, interval: 50 },
  );

describe("mail outbox: queued, sent through the sidecar's SMTP relay, caught and parsed", () => {
  it(
    "sends text + HTML with an encoded subject and sender name, the outbox's Message-ID, and no List-Unsubscribe on " +
      "required mail",
    async () => {
      const { accountId, email } = await accountAt();
      const [id] = await queueMail(env, [mail(accountId, email)]);
      const [caught] = await waitForMail(email);
      expect(caught!.envelope).toEqual({ from: "mail@verify.test", to: [email] });
      expect(caught!.to).toEqual([email]);
      expect(caught!.from).toEqual({ name: "Vérification API", address: "mail@verify.test" });
      expect(caught!.subject).toBe("Réponse prête ✓");
      expect(caught!.text).toBe("Bonjour,\nvotre réponse est prête: https://verify.test/runs/1\n");
      expect(caught!.html).toContain('<a href="https://verify.test/runs/1">votre réponse</a> est prête.');
      expect(caught!.messageId).toBe(`<${id}@verify.test>`);
      expect(caught!.headers.subject).toMatch(/^=\?utf-8\?B\?/i);
      expect(caught!.headers["list-unsubscribe"]).toBeUndefined();
      expect(await settled(id!)).toMatchObject({ status: "sent", attempts: 1 });
    },
  );

  it("optional mail carries List-Unsubscribe (one-click)", async () => {
    const { accountId, email } = await accountAt();
    const [id] = await queueMail(env, [mail(accountId, email, { optional: true })]);
    const [caught] = await waitForMail(email);
    expect(caught!.headers["list-unsubscribe"]).toBe(`<https://verify.test/mail/unsubscribe/${id}>`);
    expect(caught!.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
  });

  it("refuses a recipient who is not the account's own address or a member's, and records nothing", async () => {
    const { accountId } = await accountAt();
    const other = await accountAt();
    await expect(queueMail(env, [mail(accountId, other.email)])).rejects.toThrow(/not a member/);
    const rows = await database(env).select().from(mailMessages).where(eq(mailMessages.accountId, accountId));
    expect(rows).toEqual([]);
  });

  it("sends to a member too (members are recipients)", async () => {
    const acct = await createAccount();
    const member = `member-${Date.now()}@example.com`;
    await admin("POST", `/accounts/${acct.accountId}/members`, { email: member });
    await queueMail(env, [mail(acct.accountId, member)]);
    expect(await waitForMail(member)).toHaveLength(1);
  });

  it("queues more messages at once than one queue batch takes (100): an alert to a large account", async () => {
    const { accountId } = await accountAt();
    const stamp = `${Date.now()}-${++sequence}`;
    const emails = Array.from({ length: 120 }, (_, i) => `big-${stamp}-${i}@example.com`);
    const now = Date.now();
    for (let i = 0; i < emails.length; i += 20) {
      const part = emails.slice(i, i + 20).map((email, j) => ({ id: `usr_big_${stamp}_${i + j}`, email }));
      await database(env)
        .insert(users)
        .values(part.map((u) => ({ ...u, createdAt: now })));
      await database(env)
        .insert(memberships)
        .values(part.map((u) => ({ accountId, userId: u.id, createdAt: now, acceptedAt: now })));
    }
    const ids = await queueMail(
      env,
      emails.map((to) => mail(accountId, to)),
    );
    expect(ids).toHaveLength(120);
    await vi.waitFor(
      async () => {
        const sent = await database(env)
          .select({ id: mailMessages.id })
          .from(mailMessages)
          .where(and(eq(mailMessages.accountId, accountId), eq(mailMessages.status, "sent")));
        if (sent.length < 120) throw new Error(`${sent.length} of 120 sent`);
      },
      { timeout: 30_000, interval: 200 },
    );
    expect(await caughtFor(emails[119]!)).toHaveLength(1);
  }, 40_000);

  it(
    "a permanent refusal (550) fails at once, suppresses the recipient, and later optional mail to it is not " + "sent",
    async () => {
      const { accountId, email } = await accountAt("bounce.test");
      const [first] = await queueMail(env, [mail(accountId, email)]);
      expect(await settled(first!)).toMatchObject({
        status: "failed",
        attempts: 1,
        detail: expect.stringContaining("550"),
      });
      expect(
        await database(env).select().from(mailSuppressions).where(eq(mailSuppressions.recipient, email)).get(),
      ).toMatchObject({ recipient: email });
      const [optional] = await queueMail(env, [mail(accountId, email, { optional: true })]);
      expect(await settled(optional!)).toMatchObject({ status: "suppressed", attempts: 0 });
      // Required mail is still attempted (a confirmation link must be able to reach a fixed mailbox).
      const [required] = await queueMail(env, [mail(accountId, email)]);
      expect(await settled(required!)).toMatchObject({ status: "failed", attempts: 1 });
    },
  );

  it("a message over the relay's 512 KiB fails at once saying so, and its recipient is not suppressed", async () => {
    const { accountId, email } = await accountAt();
    const text = `${"Changed entry: +447400123456 carrier from A to B\n".repeat(4_500)}`;
    const [id] = await queueMail(env, [mail(accountId, email, { text, html: `<pre>${text}</pre>` })]);
    expect(await settled(id!)).toMatchObject({
      status: "failed",
      attempts: 1,
      detail: "mail relay refused the message (raw must be a message of at most 524288 bytes)",
    });
    expect(
      await database(env).select().from(mailSuppressions).where(eq(mailSuppressions.recipient, email)).get(),
    ).toBeUndefined();
  });

  it("a temporary refusal (451) is retried with backoff through the queue, then fails after the last " +
    "attempt", async () => {
    const { accountId, email } = await accountAt("tempfail.test");
    const [id] = await queueMail(env, [mail(accountId, email)]);
    const r = await vi.waitFor(
      async () => {
        const current = await row(id!);
        if (current?.status !== "failed") throw new Error(`still ${current?.status} after ${current?.attempts}`);
        return current;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(r).toMatchObject({ status: "failed", attempts: MAIL_ATTEMPTS, detail: expect.stringContaining("451") });
    expect(
      await database(env).select().from(mailSuppressions).where(eq(mailSuppressions.recipient, email)).get(),
    ).toBeUndefined();
  }, 30_000);

  it(
    "is idempotent per message id: a duplicate attempt message sends nothing more; a repeated dedupe key records " +
      "nothing",
    async () => {
      const { accountId, email } = await accountAt();
      const [id] = await queueMail(env, [mail(accountId, email, { dedupeKey: `event-1:${email}` })]);
      await settled(id!);
      await attemptMail(env, id!, 1);
      await attemptMail(env, id!);
      expect(await queueMail(env, [mail(accountId, email, { dedupeKey: `event-1:${email}` })])).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await caughtFor(email)).toHaveLength(1);
    },
  );

  it("recovery re-queues a pending message whose queue message was lost, and it is sent once", async () => {
    const { accountId, email } = await accountAt();
    const [id] = await queueMail(env, [mail(accountId, email)]);
    await waitForMail(email);
    // A second message recorded but never queued (a crash between the insert and the send).
    const lost = {
      ...(await row(id!))!,
      id: `msg_lost_${Date.now()}`,
      status: "pending" as const,
      attempts: 0,
      dueAt: Date.now() - 120_000,
      dedupeKey: null,
    };
    await database(env).insert(mailMessages).values(lost);
    const swept = await sweepStalled(env);
    expect(swept.mail).toBeGreaterThanOrEqual(1);
    expect(await settled(lost.id)).toMatchObject({ status: "sent", attempts: 1 });
    expect(await waitForMail(email, 2)).toHaveLength(2);
  });

  it("retention deletes settled messages after 30 days and keeps pending ones", async () => {
    const { accountId, email } = await accountAt();
    const [id] = await queueMail(env, [mail(accountId, email)]);
    await settled(id!);
    const old = Date.now() - 31 * 86_400_000;
    const pending = {
      ...(await row(id!))!,
      id: `msg_old_pending_${Date.now()}`,
      status: "pending" as const,
      dedupeKey: null,
      updatedAt: old,
      dueAt: Date.now() + 3_600_000,
    };
    await database(env).insert(mailMessages).values(pending);
    await database(env).update(mailMessages).set({ updatedAt: old }).where(eq(mailMessages.id, id!));
    await sweepMail(database(env), Date.now());
    expect(await row(id!)).toBeUndefined();
    expect(await row(pending.id)).toMatchObject({ status: "pending" });
    await database(env).delete(mailMessages).where(eq(mailMessages.id, pending.id));
  });

  it("retention deletes links expired 30 days ago and keeps newer ones", async () => {
    const { accountId, email } = await accountAt();
    const now = Date.now();
    await issueLink(env, { purpose: "confirm_email", accountId, recipient: email, ttlMs: 1 }, now - 31 * 86_400_000);
    await issueLink(env, { purpose: "confirm_email", accountId, recipient: email, ttlMs: 1 }, now - 29 * 86_400_000);
    await sweepMailLinks(database(env), now);
    const left = await database(env).select().from(mailLinks).where(eq(mailLinks.accountId, accountId));
    expect(left.map((l) => l.createdAt)).toEqual([now - 29 * 86_400_000]);
  });
});

describe("GET /admin/v1/mail", () => {
  it(
    "lists messages newest first with recipient, subject, kind, status and the text body; filters by " + "account",
    async () => {
      const { accountId, email } = await accountAt();
      const [first] = await queueMail(env, [mail(accountId, email, { subject: "first" })]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const [second] = await queueMail(env, [mail(accountId, email, { subject: "second", kind: "other_notice" })]);
      await settled(first!);
      await settled(second!);
      const data = await admin<{ messages: Record<string, unknown>[] }>("GET", `/mail?account_id=${accountId}`);
      expect(data.messages.map((m) => m.id)).toEqual([second, first]);
      expect(data.messages[1]).toEqual({
        id: first,
        account_id: accountId,
        recipient: email,
        subject: "first",
        kind: "test_notice",
        status: "sent",
        detail: expect.any(String),
        attempts: 1,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        text: mail(accountId, email).text,
      });
      const filtered = await admin<{ messages: { id: string }[] }>(
        "GET",
        `/mail?account_id=${accountId}&kind=other_notice`,
      );
      expect(filtered.messages.map((m) => m.id)).toEqual([second]);
    },
  );

  it("needs the admin token, and a bad limit is a validation error", async () => {
    expect((await call("/admin/v1/mail")).status).toBe(401);
    const bad = await call("/admin/v1/mail?limit=0", { headers: { Authorization: "Bearer test-admin-token" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("VALIDATION_FAILED");
  });
});

describe("hourly limits per account, kind and recipient", () => {
  it("records messages over the limit as suppressed and sends none of them; other kinds still go", async () => {
    const { accountId, email } = await accountAt();
    const limit = HOURLY_LIMITS.account_confirmation!;
    const queued: string[] = [];
    for (let i = 0; i < limit + 2; i++)
      queued.push(
        ...(await queueMail(env, [mail(accountId, email, { kind: "account_confirmation", subject: `n${i}` })])),
      );
    expect(queued).toHaveLength(limit);
    const other = await queueMail(env, [mail(accountId, email, { kind: "test_notice" })]);
    expect(other).toHaveLength(1);
    await waitForMail(email, limit + 1);
    const { messages } = await admin<{ messages: { subject: string; status: string; detail: string | null }[] }>(
      "GET",
      `/mail?account_id=${accountId}&kind=account_confirmation`,
    );
    // Several rows can share a millisecond, so the order among them is not asserted.
    const suppressed = messages.filter((m) => m.status === "suppressed");
    expect(suppressed.map((m) => m.subject).sort()).toEqual([`n${limit}`, `n${limit + 1}`].sort());
    expect(suppressed.map((m) => m.detail)).toEqual([
      "hourly limit for this kind of message reached",
      "hourly limit for this kind of message reached",
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await caughtFor(email)).toHaveLength(limit + 1);
  });
});
