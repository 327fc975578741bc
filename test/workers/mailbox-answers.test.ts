/**
 * Email's shared mailbox answers leave the lookup path: a lookup hands them to the JOBS queue after its answer
 * (`mailbox_answers`), and the queue's consumer stores every such message of a delivered batch in one D1 write,
 * idempotently (a redelivery changes nothing, an older answer never replaces a newer one).
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { shareMailboxes, type SharedMailbox } from "../../src/products/email/store";
import type { JobMessage } from "../../src/queue";
import worker from "../../src/index";
import { createAccount, lookupEmail, mailboxesShared, mailStats, rcptCount } from "../helpers";

const row = (email: string) =>
  env.DB.prepare("SELECT email, domain, outcome, checked_at, catch_all FROM mailbox_answers WHERE email = ?")
    .bind(email)
    .first();

const answer = (email: string, outcome: SharedMailbox["outcome"], checkedAt: number): SharedMailbox => ({
  email,
  domain: email.slice(email.indexOf("@") + 1),
  outcome,
  checkedAt,
  catchAll: outcome === "catch_all" ? true : null,
});

/** Delivers one batch of `mailbox_answers` messages to the consumer, as the runtime does: its acks and retries. */
async function deliver(messages: SharedMailbox[][], attempt = 1) {
  const ctx = createExecutionContext();
  const batch = createMessageBatch<JobMessage>(
    "verification-jobs",
    messages.map((answers, i) => ({
      id: `mbx-${attempt}-${i}`,
      timestamp: new Date(),
      attempts: attempt,
      body: { type: "mailbox_answers", answers } as JobMessage,
    })),
  );
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

afterEach(() => vi.restoreAllMocks());

describe("the mailbox_answers consumer", () => {
  it("stores every message of a batch and acknowledges a redelivery without changing a row", async () => {
    const at = Date.now() - 60_000;
    const first = [answer("ann@q1.example", "accepted", at), answer("bo@q1.example", "no_mailbox", at)];
    const second = [answer("cy@q2.example", "catch_all", at)];
    for (const attempt of [1, 2]) {
      const result = await deliver([first, second], attempt);
      expect(result.explicitAcks.sort()).toEqual([`mbx-${attempt}-0`, `mbx-${attempt}-1`]);
      expect(result.retryMessages).toEqual([]);
    }
    expect(await row("ann@q1.example")).toEqual({
      email: "ann@q1.example",
      domain: "q1.example",
      outcome: "accepted",
      checked_at: at,
      catch_all: null,
    });
    expect(await row("bo@q1.example")).toMatchObject({ outcome: "no_mailbox", checked_at: at });
    expect(await row("cy@q2.example")).toMatchObject({ outcome: "catch_all", checked_at: at, catch_all: 1 });
  });

  it("never replaces a newer answer with an older one, across batches and inside one", async () => {
    const newer = Date.now() - 1_000;
    const older = newer - 600_000;
    await deliver([[answer("dee@q3.example", "accepted", newer)]]);
    // A late message with an older handshake of the same mailbox changes nothing.
    await deliver([[answer("dee@q3.example", "no_mailbox", older)]]);
    expect(await row("dee@q3.example")).toMatchObject({ outcome: "accepted", checked_at: newer });
    // Two answers for one mailbox in one batch, older last: the newer stays.
    await deliver([[answer("eve@q3.example", "greylisted", newer)], [answer("eve@q3.example", "accepted", older)]]);
    expect(await row("eve@q3.example")).toMatchObject({ outcome: "greylisted", checked_at: newer });
    // A newer answer does replace an older one.
    await deliver([[answer("dee@q3.example", "mailbox_full", newer + 1)]]);
    expect(await row("dee@q3.example")).toMatchObject({ outcome: "mailbox_full", checked_at: newer + 1 });
  });

  it("retries every message of the type when the write fails, and half-writes nothing", async () => {
    const at = Date.now();
    const bad = { ...answer("fay@q4.example", "accepted", at), checkedAt: null } as unknown as SharedMailbox;
    const result = await deliver([[answer("gus@q4.example", "accepted", at)], [bad]]);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((m) => m.msgId).sort()).toEqual(["mbx-1-0", "mbx-1-1"]);
    expect(await row("gus@q4.example")).toBeNull();
  });
});

describe("shared across accounts through the queue", () => {
  it("reuses account A's handshake answer for account B's lookup once the consumer ran: no new handshake", async () => {
    const a = await createAccount({ pack: 5 });
    const b = await createAccount({ pack: 5 });
    const first = await lookupEmail<{ smtp_checked_at: string }>(a.key, { email: "kate@acme.example" });
    expect(first.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    await mailboxesShared(["kate@acme.example"], Date.parse(first.body.data.smtp_checked_at));
    const rcpts = rcptCount(await mailStats(), "kate@acme.example");
    const second = await lookupEmail<{ smtp_checked_at: string }>(b.key, { email: "kate@acme.example" });
    expect(second.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    expect(second.body.data.smtp_checked_at).toBe(first.body.data.smtp_checked_at);
    expect(rcptCount(await mailStats(), "kate@acme.example")).toBe(rcpts);
  });

  it("after the answer, a failed queue send is logged and loses only the sharing", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const deferred: (() => Promise<unknown>)[] = [];
    const broken = {
      ...env,
      JOBS: { send: () => Promise.reject(new Error("queue unavailable")) },
    } as unknown as Env;
    const observed = new Map([["ivy@q5.example", { outcome: "accepted" as const, checkedAt: Date.now() }]]);
    await shareMailboxes(broken, observed, (work) => deferred.push(work));
    expect(deferred).toHaveLength(1);
    await expect(deferred[0]!()).resolves.toBeUndefined();
    expect(errors.mock.calls.map((c) => JSON.parse(String(c[0])).event)).toContain("mailbox_share_failed");
    expect(await row("ivy@q5.example")).toBeNull();
  });
});
