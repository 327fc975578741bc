/**
 * Recovery without the cron: a Durable Object alarm (kept across restarts, and fired by `wrangler dev`, which never
 * fires crons by itself) sweeps what a crash left behind within a minute or two: runs nobody works on, pending
 * deliveries whose message was lost, and finished runs whose event was never handed to the outbox.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { createJob } from "../../src/engines/bulk/create";
import { jobById } from "../../src/engines/bulk/jobs";
import type { Product } from "../../src/engines/product";
import { enqueueDelivery, latestStatuses, STALE_DELIVERY_MS } from "../../src/engines/webhooks/outbox";
import { mintSecret } from "../../src/engines/webhooks/secret";
import { RECOVERY_STALL_MS, recoveryStub } from "../../src/engines/recovery";
import { productNamed } from "../../src/products/registry";
import { capturedQueue, funded, rand } from "../contract/helpers";
import { accountObject } from "../helpers";
import { finishJob } from "../../src/engines/bulk/run";
import { accountRecipients } from "../../src/engines/mail/recipients";

const email = productNamed("email") as Product;
const alarmAt = () => runInDurableObject(recoveryStub(env), (_instance, state) => state.storage.getAlarm());
const received = async (path: string) =>
  ((await (await fetch(`${env.RECEIVER_URL}/__log?prefix=${path}`)).json()) as unknown[]).length;

async function until<T>(what: () => Promise<T>, ok: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const stale = () => Date.now() - Math.max(RECOVERY_STALL_MS, STALE_DELIVERY_MS) - 1_000;

/** A queued one-row email run of the account (nothing runs it here). */
async function oneRowRun(acct: { accountId: string; keyId: string }, webhookUrl: string | null = null) {
  const input = { inputs: ["deliverable@service.test"], options: {}, webhookUrl, idempotencyKey: null };
  return (await createJob(capturedQueue().env, email, { accountId: acct.accountId, keyId: acct.keyId, ...input })).row;
}

/** Fires the recovery alarm now (one sweep). */
async function sweepNow() {
  await runInDurableObject(recoveryStub(env), (_instance, state) => state.storage.setAlarm(Date.now()));
  return runDurableObjectAlarm(recoveryStub(env));
}

beforeAll(async () => {
  // Earlier files may have left the shared alarm set; start from a clean one.
  await runInDurableObject(recoveryStub(env), (_instance, state) => state.storage.deleteAlarm());
});

describe("the recovery alarm", () => {
  it("is armed when a run is created and when a delivery is queued", async () => {
    await runInDurableObject(recoveryStub(env), (_instance, state) => state.storage.deleteAlarm());
    const acct = await funded(1);
    await createJob(capturedQueue().env, email, {
      accountId: acct.accountId,
      keyId: acct.keyId,
      inputs: ["deliverable@service.test"],
      options: {},
      webhookUrl: null,
      idempotencyKey: null,
    });
    const armed = await alarmAt();
    expect(armed).not.toBeNull();
    expect(armed! - Date.now()).toBeLessThanOrEqual(RECOVERY_STALL_MS + 1_000);
    await runInDurableObject(recoveryStub(env), (_instance, state) => state.storage.deleteAlarm());
    await enqueueDelivery(capturedQueue().env, {
      owner: "callback",
      ownerId: `armed-${rand()}`,
      event: "email.settled",
      url: "https://example.com/",
      secret: mintSecret(),
      body: "{}",
    });
    expect(await alarmAt()).not.toBeNull();
  });

  it("re-queues a delivery whose attempt a crash lost, and it is delivered", async () => {
    const path = `/ok/lost-${rand()}`;
    const id = await enqueueDelivery(capturedQueue().env, {
      owner: "callback",
      ownerId: `lost-${rand()}`,
      event: "email.settled",
      url: `${env.RECEIVER_URL}${path}`,
      secret: mintSecret(),
      body: '{"event":"email.settled"}',
    });
    await env.DB.prepare("UPDATE webhook_deliveries SET updated_at = ? WHERE id = ?").bind(stale(), id).run();
    expect(await runDurableObjectAlarm(recoveryStub(env))).toBe(true);
    expect(
      await until(
        () => received(path),
        (n) => n > 0,
      ),
    ).toBe(1);
    const status = await until(
      () => env.DB.prepare("SELECT status FROM webhook_deliveries WHERE id = ?").bind(id).first<{ status: string }>(),
      (r) => r?.status === "delivered",
    );
    expect(status?.status).toBe("delivered");
  });

  it("re-queues a run whose consumer died, which then completes", async () => {
    const acct = await funded(5);
    const { row } = await createJob(capturedQueue().env, email, {
      accountId: acct.accountId,
      keyId: acct.keyId,
      inputs: ["deliverable@service.test", "risky@service.test"],
      options: {},
      webhookUrl: null,
      idempotencyKey: null,
    });
    await env.DB.prepare("UPDATE bulk_jobs SET status = 'processing', updated_at = ? WHERE id = ?")
      .bind(stale(), row.id)
      .run();
    expect(await runDurableObjectAlarm(recoveryStub(env))).toBe(true);
    const job = await until(
      () => jobById(database(env), row.id),
      (j) => j?.status === "completed",
    );
    expect(job).toMatchObject({ status: "completed", processed: 2 });
  });

  it("hands a finished run's event to the outbox when a crash came between finishing and queueing it", async () => {
    const acct = await funded(5);
    const path = `/ok/finished-${rand()}`;
    const { row } = await createJob(capturedQueue().env, email, {
      accountId: acct.accountId,
      keyId: acct.keyId,
      inputs: ["deliverable@service.test"],
      options: {},
      webhookUrl: `${env.RECEIVER_URL}${path}`,
      idempotencyKey: null,
    });
    await env.DB.prepare(
      "UPDATE bulk_jobs SET status = 'completed', processed = 1, finished_at = ?, updated_at = ? WHERE id = ?",
    )
      .bind(stale(), stale(), row.id)
      .run();
    await runInDurableObject(recoveryStub(env), (_instance, state) => state.storage.setAlarm(Date.now()));
    expect(await runDurableObjectAlarm(recoveryStub(env))).toBe(true);
    expect(
      await until(
        () => received(path),
        (n) => n > 0,
      ),
    ).toBe(1);
    const status = await until(
      () => latestStatuses(database(env), "job", [String(row.id)]),
      (s) => s.get(String(row.id))?.status === "delivered",
    );
    expect(status.get(String(row.id))?.status).toBe("delivered");
  });

  it("queues the mail of a run a crash left unmailed after its finish, once however often it sweeps", async () => {
    const acct = await funded(5);
    await accountObject(acct.accountId).setMailSettings({ bulk_finished_emails: true });
    const row = await oneRowRun(acct);
    const finishedAt = stale();
    // What a crash right after the finish leaves: the run settled, its mail step never run.
    await env.DB.prepare(
      "UPDATE bulk_jobs SET status = 'completed', processed = 1, finished_at = ?, updated_at = ? WHERE id = ?",
    )
      .bind(finishedAt, finishedAt, row.id)
      .run();
    const queued = () =>
      env.DB.prepare("SELECT recipient, subject FROM mail_messages WHERE dedupe_key LIKE ? ORDER BY recipient")
        .bind(`bulk_finished:${row.id}:${finishedAt}:%`)
        .all<{ recipient: string; subject: string }>();
    expect((await queued()).results).toEqual([]);
    await sweepNow();
    await sweepNow();
    const recipients = (await accountRecipients(database(env), acct.accountId)).sort();
    expect(recipients.length).toBeGreaterThan(0);
    expect((await queued()).results).toEqual(
      recipients.map((recipient) => ({ recipient, subject: `Bulk email run ${row.id} completed` })),
    );
    const marked = await env.DB.prepare("SELECT finished_mail_at FROM bulk_jobs WHERE id = ?").bind(row.id).first();
    expect(marked?.finished_mail_at).toEqual(expect.any(Number));
  });

  it("leaves a run alone once its finish ran the mail step, wanted or not", async () => {
    const acct = await funded(5);
    const row = await oneRowRun(acct);
    await finishJob(env, row.id, "completed");
    const after = await jobById(database(env), row.id);
    expect(after?.finishedMailAt).toEqual(expect.any(Number));
    // Turned on later: a sweep does not mail an old finish.
    await accountObject(acct.accountId).setMailSettings({ bulk_finished_emails: true });
    await env.DB.prepare("UPDATE bulk_jobs SET finished_at = ? WHERE id = ?").bind(stale(), row.id).run();
    await sweepNow();
    const mails = await env.DB.prepare("SELECT COUNT(*) AS n FROM mail_messages WHERE dedupe_key LIKE ?")
      .bind(`bulk_finished:${row.id}:%`)
      .first<{ n: number }>();
    expect(mails?.n).toBe(0);
  });
});
