import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { inviteMember } from "../../src/surfaces/dashboard/accounts";
import { INVITATION_VALID_MS } from "../../src/db/members";
import { receiveFeedback } from "../../src/engines/lists/feedback";
import { createMonitor } from "../../src/engines/monitors/edit";
import { runMonitor } from "../../src/engines/monitors/run";
import type { MonitorRow } from "../../src/engines/monitors/store";
import { PRODUCTS } from "../../src/products/registry";
import { Browser, followLatestLink, signedUpOwner, uniqueEmail } from "../dashboard-browser";
import { admin, createAccount } from "../helpers";
import { caughtFor, waitForMail } from "../mail-catcher";

/**
 * Issue 48, item 3: an invitation made the address a member at once, and members receive the account's mail, so an
 * account could send its monitor alerts to strangers it merely invited. Mail now goes to members who accepted (signed
 * in); an invitation not accepted within 7 days lapses (docs/mail.md, "Who receives mail").
 */
vi.setConfig({ testTimeout: 60_000 });

const email = PRODUCTS.email;

interface Caught {
  recipient: string;
  kind: string;
}

/** The account's messages as the outbox recorded them (queued, sent or suppressed), by kind. */
const outbox = async (accountId: string, kind: string) =>
  (await admin<{ messages: Caught[] }>("GET", `/mail?account_id=${accountId}&kind=${kind}`)).messages;

/**
 * A monitor with alert emails on and two addresses of a catch-all domain (1 credit each; test values never change),
 * its baseline taken; each `change()` reports a hard bounce for the next entry (it decays) and runs the monitor again.
 */
async function alerting(accountId: string, keyId: string) {
  const entries = [0, 1].map((i) => `w${Date.now()}${i}${Math.random().toString(36).slice(2, 8)}@catchall.example`);
  const fields = {
    name: "Watched",
    entries,
    cadence: "weekly" as const,
    webhookUrl: null,
    webhookEvents: "changes" as const,
  };
  const { row } = await createMonitor(env, email, { accountId, keyId }, { ...fields, alertEmails: true });
  let monitor: MonitorRow = row;
  let at = Date.now();
  await runMonitor(env, email, monitor, { now: at });
  let next = 0;
  return async function change() {
    const bounce = { value: entries[next++], outcome: "bounced", kind: "hard", occurredAt: null, detail: {} };
    await receiveFeedback(env, email, { accountId, source: "api", events: [bounce], ignored: 0, now: Date.now() });
    at = Math.max(Date.now(), at + 1_000);
    const result = await runMonitor(env, email, monitor, { now: at });
    monitor = result.monitor;
    expect(result.summary.changed).toBe(1);
  };
}

describe("invited addresses get no account mail until they accept", () => {
  it("an invited, not yet accepted address gets its invitation and no alert; after accepting, the alerts", async () => {
    const acct = await createAccount({ pack: 10 });
    const { members } = await admin<{ members: { email: string }[] }>("GET", `/accounts/${acct.accountId}/members`);
    const stranger = uniqueEmail("invited");
    const invited = await inviteMember(env, {
      accountId: acct.accountId,
      email: stranger,
      role: "member",
      invitedBy: "x@example.com",
    });
    expect(invited.outcome).toBe("invited");
    await waitForMail(stranger);
    const change = await alerting(acct.accountId, acct.keyId);
    await change();
    const first = await outbox(acct.accountId, "monitor_alert");
    // The account's address and its accepted member: two alerts, none to the invited address.
    const { email: own } = await admin<{ email: string }>("GET", `/accounts/${acct.accountId}`);
    expect(first.map((m) => m.recipient).sort()).toEqual([own, ...members.map((m) => m.email)].sort());
    await new Promise((resolve) => setTimeout(resolve, 300)); // an alert would have been caught by now
    expect((await caughtFor(stranger)).map((m) => m.subject)).toEqual([
      "You were invited to a Verification API account",
    ]);

    // Accepting: following the invitation's link signs them in; the next run's alert reaches them too.
    const browser = new Browser();
    expect((await followLatestLink(browser, stranger)).status).toBe(303);
    await change();
    const second = await outbox(acct.accountId, "monitor_alert");
    expect(second.filter((m) => m.recipient === stranger)).toHaveLength(1);
    const mails = await waitForMail(stranger, 2);
    expect(mails[1]!.subject).toContain("Watched");
  });

  it("an invitation not accepted within 7 days lapses: its link signs nobody in, and it gets no mail", async () => {
    const acct = await createAccount({ pack: 10 });
    const stranger = uniqueEmail("lapsed");
    const invitedBy = "x@example.com";
    const invited = await inviteMember(env, { accountId: acct.accountId, email: stranger, role: "member", invitedBy });
    expect(invited.outcome).toBe("invited");
    // Seven days and a minute pass (the link itself is still good: only the invitation has lapsed).
    await env.DB.prepare(
      "UPDATE memberships SET created_at = created_at - ? WHERE account_id = ? AND user_id = " +
        "(SELECT id FROM users WHERE email = ?)",
    )
      .bind(INVITATION_VALID_MS + 60_000, acct.accountId, stranger)
      .run();
    const browser = new Browser();
    expect((await followLatestLink(browser, stranger)).status).toBe(410);
    expect((await browser.fetch("/dashboard")).status).not.toBe(200);
    const change = await alerting(acct.accountId, acct.keyId);
    await change();
    expect((await outbox(acct.accountId, "monitor_alert")).map((m) => m.recipient)).not.toContain(stranger);
    // Invited again, the invitation is new (valid from now) and can be accepted.
    const again = await inviteMember(env, { accountId: acct.accountId, email: stranger, role: "member", invitedBy });
    expect(again.outcome).toBe("invited");
    expect((await followLatestLink(new Browser(), stranger, 2)).status).toBe(303);
  });

  it("the members page shows an invitation as pending until it is accepted", async () => {
    const { browser } = await signedUpOwner("page-inviter");
    const stranger = uniqueEmail("pending");
    await browser.submit("/dashboard/members", "/dashboard/members", { email: stranger, role: "member" });
    const until = new Date(Date.now() + INVITATION_VALID_MS).toISOString().slice(0, 10);
    const row = (html: string) => html.slice(html.indexOf(stranger), html.indexOf(stranger) + 400);
    expect(row(await (await browser.fetch("/dashboard/members")).text())).toContain(`(invited, until ${until})`);
    expect((await followLatestLink(new Browser(), stranger)).status).toBe(303);
    expect(row(await (await browser.fetch("/dashboard/members")).text())).not.toContain("invited, until");
  });
});
