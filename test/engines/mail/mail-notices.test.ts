import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "../../../src/db/client";
import { accounts, mailMessages } from "../../../src/db/schema";
import { admin, anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { installSamples, LEI } from "../../entity-samples";
import { caughtFor, waitForMail } from "../../mail-catcher";

/**
 * Mail about the account's money and runs (docs/mail.md): low balance (once per crossing of the account's threshold),
 * a key's daily cap (once per key per day), a bulk run finished (opt-in per account). Read back from the catcher.
 */
const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
const patchAccount = (key: string, body: unknown) =>
  call<{ mail: Record<string, unknown>; balance: { total: number } }>(
    "/api/v1/account",
    json(body, auth(key), "PATCH"),
  );
const entityBatch = (key: string, identifiers: string[]) =>
  call<{ results: unknown[] }>("/api/v1/entity/batch", json({ identifiers }, auth(key)));

async function recipientsOf(acct: TestAccount) {
  const owner = await database(env)
    .select({ email: accounts.email })
    .from(accounts)
    .where(eq(accounts.id, acct.accountId))
    .get();
  return { owner: owner!.email };
}

const messagesOf = (accountId: string, kind: string) =>
  database(env)
    .select()
    .from(mailMessages)
    .where(and(eq(mailMessages.accountId, accountId), eq(mailMessages.kind, kind)));

/** Gives the queue time to hand over anything more (a notice goes out after the call that caused it). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

beforeAll(installSamples);

describe("PATCH /api/v1/account: the account's mail settings", () => {
  it("sets low_balance_threshold and bulk_finished_emails, shows them on GET /account, and validates", async () => {
    const acct = await createAccount({ pack: 3 });
    const initial = await call<{ mail: unknown }>("/api/v1/account", bearer(acct.key));
    expect(initial.body.data.mail).toEqual({ low_balance_threshold: null, bulk_finished_emails: false });
    const patched = await patchAccount(acct.key, { low_balance_threshold: 50, bulk_finished_emails: true });
    expect(patched.status).toBe(200);
    expect(patched.body.data.mail).toEqual({ low_balance_threshold: 50, bulk_finished_emails: true });
    expect(patched.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 3 });
    const key2 = await anotherKey(acct);
    expect((await call<{ mail: unknown }>("/api/v1/account", bearer(key2))).body.data.mail).toEqual({
      low_balance_threshold: 50,
      bulk_finished_emails: true,
    });
    expect((await patchAccount(key2, { low_balance_threshold: null })).body.data.mail).toEqual({
      low_balance_threshold: null,
      bulk_finished_emails: true,
    });

    const key3 = await anotherKey(acct);
    for (const bad of [
      {},
      { low_balance_threshold: 0 },
      { low_balance_threshold: 2.5 },
      { bulk_finished_emails: "yes" },
      { email: "x@example.com" },
    ]) {
      const refused = await patchAccount(key3, bad);
      expect([refused.status, refused.body.error?.code]).toEqual([422, "VALIDATION_FAILED"]);
    }
  });
});

describe("low balance warning", () => {
  it("mails every member once when a settle leaves the balance below the threshold, not per lookup; credits re-arm " +
    "it", async () => {
    const acct = await createAccount({ pack: 10 });
    const { owner } = await recipientsOf(acct);
    await patchAccount(acct.key, { low_balance_threshold: 8 });
    // 3 credits: 10 -> 7, below 8.
    expect((await entityBatch(acct.key, [LEI.widgets, LEI.holdings, LEI.energy])).body.meta).toMatchObject({
      credits_used: 3,
    });
    const [warning] = await waitForMail(owner);
    expect(warning!.to).toEqual([owner]);
    expect(warning!.subject).toBe("Your balance is below 8 credits");
    expect(warning!.text).toContain(
      "Your Verification API balance is 7 credits, below the warning threshold of 8 you set.",
    );
    expect(warning!.text).toContain("Your balance: https://verify.test/api/v1/account");
    expect(warning!.html).toContain('<a href="https://verify.test/api/v1/account">Your balance</a>');
    expect(warning!.headers["list-unsubscribe"]).toMatch(
      /^<https:\/\/verify\.test\/mail\/unsubscribe\/msg_[0-9A-Za-z]+>$/,
    );
    expect(warning!.text).not.toContain(acct.key);

    // Still below: another paid lookup sends nothing more.
    const key2 = await anotherKey(acct);
    expect((await entityBatch(key2, [LEI.retail])).body.meta).toMatchObject({ credits_used: 1 });
    await settle();
    const rows = await messagesOf(acct.accountId, "low_balance");
    expect(rows.filter((r) => r.recipient === owner)).toHaveLength(1);
    expect(rows).toHaveLength(2); // the owner and the member

    // Back above (6 + 3 = 9), then below again (9 - 2 = 7): a new crossing, a new warning.
    await admin("POST", `/accounts/${acct.accountId}/credits`, { bucket: "pack", amount: 3 });
    expect((await entityBatch(key2, [LEI.software, LEI.scottish])).body.meta).toMatchObject({ credits_used: 2 });
    const [, second] = await waitForMail(owner, 2);
    expect(second!.text).toContain("balance is 7 credits");
  }, 20_000);
});

describe("daily spend cap reached", () => {
  it("mails once per key per day when the cap stops a batch; the 429s after it send nothing more", async () => {
    const acct = await createAccount({ pack: 10, key: { daily_credit_cap: 2 } });
    const { owner } = await recipientsOf(acct);
    const stopped = await entityBatch(acct.key, [LEI.widgets, LEI.holdings, LEI.energy]);
    expect(stopped.body.meta).toMatchObject({ processed: 2, credits_used: 2, stopped_reason: "key_spend_cap" });
    const [mail] = await waitForMail(owner);
    expect(mail!.subject).toBe(`Key ${acct.keyId} reached its daily credit cap`);
    expect(mail!.text).toContain(
      `The API key ${acct.keyId} has spent its daily cap of 2 credits today ` +
        `(${new Date().toISOString().slice(0, 10)}, UTC).`,
    );
    expect(mail!.text).toContain("The ledger, by key: https://verify.test/api/v1/account/ledger");
    expect(mail!.html).toContain('<a href="https://verify.test/api/v1/account/ledger">');
    expect(mail!.text).not.toContain(acct.key);
    expect(mail!.html).not.toContain(acct.key);

    const refused = await entityBatch(acct.key, [LEI.retail]);
    expect([refused.status, refused.body.error?.code]).toEqual([429, "KEY_SPEND_CAP_REACHED"]);
    await settle();
    expect((await messagesOf(acct.accountId, "key_spend_cap")).filter((r) => r.recipient === owner)).toHaveLength(1);
    expect(await caughtFor(owner)).toHaveLength(1);
  }, 15_000);
});

describe("bulk run finished", () => {
  const phones = [{ phone: "020 7946 0123", country: "GB" }, "+44 20", "+44 20 7946 0456"];
  const runBulk = async (acct: TestAccount) => {
    const created = await call<{ job: { id: number } }>("/api/v1/phone/bulk", json({ phones }, auth(acct.key)));
    expect(created.status).toBe(202);
    return created.body.data.job.id;
  };

  it("mails the members when the account turned bulk_finished_emails on, with the run's counters and " +
    "links", async () => {
    const acct = await createAccount({ pack: 10 });
    const { owner } = await recipientsOf(acct);
    await patchAccount(acct.key, { bulk_finished_emails: true });
    const jobId = await runBulk(acct);
    const [mail] = await waitForMail(owner);
    expect(mail!.to).toEqual([owner]);
    expect(mail!.subject).toBe(`Bulk phone run ${jobId} completed`);
    expect(mail!.text).toMatch(
      new RegExp(`^Your phone bulk run ${jobId} is completed: 3 of 3 entries processed, \\d+ credits used\\.`),
    );
    expect(mail!.text).toContain("valid: 2");
    expect(mail!.text).toContain(`The run: GET https://verify.test/api/v1/phone/bulk/${jobId}`);
    expect(mail!.html).toContain(`<a href="https://verify.test/api/v1/phone/bulk/${jobId}/results">`);
    expect(mail!.headers["list-unsubscribe"]).toBeDefined();
  }, 15_000);

  it("sends nothing when the account did not opt in", async () => {
    const acct = await createAccount({ pack: 10 });
    const jobId = await runBulk(acct);
    const keys = [acct.key, await anotherKey(acct)];
    for (let i = 0; i < 80; i++) {
      const { body } = await call<{ job: { status: string } }>(`/api/v1/phone/bulk/${jobId}`, bearer(keys[i % 2]!));
      if (!["queued", "processing"].includes(body.data.job.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await settle();
    expect(await messagesOf(acct.accountId, "bulk_finished")).toEqual([]);
  }, 30_000);
});
