import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EmailResult } from "../../../src/products/email/result";
import { anotherKey, bearer, call, createAccount, json, mailStats, rcptCount, type TestAccount } from "../../helpers";
import { deliveredAt, WebhookVerifier } from "../../webhook-receiver";

/**
 * Lists larger than one sidecar call (50 addresses) at one domain, against the real sidecar and the fixture SMTP server
 * (lists.example: local parts starting `ok-` exist, everything else is 550 5.1.1). Every address gets the mail
 * server's answer; one the sidecar cannot take (a quoted or non-ASCII local part) is answered unverified on its own.
 * The 10,000-address case runs at the sidecar client's level (workers/smtp-sidecar/test/domain-probe.test.mjs).
 */
const DOMAIN = "lists.example";
const rand = () => crypto.randomUUID().slice(0, 8);
/** `count` addresses at lists.example; long local parts make a 400-change run body larger than 60 KiB. */
const addresses = (kind: "ok" | "no", count: number, tag = rand()) =>
  Array.from({ length: count }, (_, i) => `${kind}-${tag}-${i}-list-member@${DOMAIN}`);

async function keys(acct: TestAccount) {
  const pool = [acct.key, await anotherKey(acct), await anotherKey(acct)];
  let i = 0;
  return () => pool[i++ % pool.length]!;
}

/**
 * A real mail server expects few sessions at once from one client: a list keeps to 4 calls in flight (5 open for a
 * moment while the first call's session says QUIT).
 */
async function expectPoliteSessions() {
  expect((await mailStats()).peakSessions[DOMAIN]).toBeLessThanOrEqual(5);
}

interface BatchItem {
  input: string;
  data: EmailResult;
  meta: { credits_used: number };
}

describe("mailbox checks of lists larger than one sidecar call, at one domain", () => {
  it("answers a 50-address batch holding a quoted and a non-ASCII local part: only those go unverified", async () => {
    const acct = await createAccount({ pack: 100 });
    const [ok, no] = [addresses("ok", 24), addresses("no", 24)];
    const quoted = `"x y ${rand()}"@${DOMAIN}`;
    const unicode = `josé-${rand()}@${DOMAIN}`;
    const emails = [...ok.slice(0, 12), quoted, ...no, unicode, ...ok.slice(12)];
    const { status, body } = await call<{ results: BatchItem[] }>(
      "/api/v1/email/batch",
      json({ emails }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(status).toBe(200);
    const verdict = new Map(body.data.results.map((r) => [r.input, r]));
    for (const email of ok)
      expect([verdict.get(email)!.data.deliverable, verdict.get(email)!.meta.credits_used]).toEqual(["deliverable", 1]);
    for (const email of no) expect(verdict.get(email)!.data).toMatchObject({ deliverable: "undeliverable" });
    for (const email of no) expect(verdict.get(email)!.data.reason).toBe("mailbox_not_found");
    for (const email of [quoted, unicode]) {
      expect(verdict.get(email)!.data).toMatchObject({ deliverable: "risky", reason: "unverified" });
      expect(verdict.get(email)!.meta.credits_used).toBe(0);
    }
    expect(body.meta).toMatchObject({ requested: 50, processed: 50, credits_used: 24, stopped_reason: null });
    const stats = await mailStats();
    expect(rcptCount(stats, ok[0]!)).toBe(1);
    expect(stats.sessions.flatMap((s) => s.rcpts).filter((r) => r.includes("x y") || r.includes("josé"))).toEqual([]);
  });

  it("answers every row of a 120-row bulk run at one domain (a 10,000-row run's path, chunk by chunk)", async () => {
    const acct = await createAccount({ pack: 200 });
    const emails = [...addresses("ok", 40), ...addresses("no", 80)];
    const created = await call<{ job: { id: number } }>(
      "/api/v1/email/bulk",
      json({ emails }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(created.status).toBe(202);
    const key = await keys(acct);
    const deadline = Date.now() + 25_000;
    let job: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      job = (
        await call<{ job: Record<string, unknown> }>(`/api/v1/email/bulk/${created.body.data.job.id}`, bearer(key()))
      ).body.data.job;
      if (!["queued", "processing"].includes(String(job.status))) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(job).toMatchObject({
      status: "completed",
      total: 120,
      processed: 120,
      deliverable: 40,
      risky: 0,
      undeliverable: 80,
      credits_used: 40,
      stopped_reason: null,
    });
    await expectPoliteSessions();
  });

  it(
    "runs a 500-entry monitor with a mailbox answer for every entry, and delivers its 400-change run body " +
      "(over 60 KiB) signed",
    async () => {
      const acct = await createAccount({ pack: 1000 });
      const key = await keys(acct);
      const [ok, no] = [addresses("ok", 100), addresses("no", 400)];
      const path = `/ok/list-monitor-${rand()}`;
      const created = await call<{ monitor: { id: number }; webhook_secret: string }>(
        "/api/v1/email/monitors",
        json(
          {
            name: "Big list",
            cadence: "weekly",
            emails: [...ok, ...no],
            webhook_url: `${env.RECEIVER_URL}${path}`,
            webhook_events: "changes",
          },
          { Authorization: `Bearer ${key()}` },
        ),
      );
      expect(created.status).toBe(201);
      const id = created.body.data.monitor.id;
      const run = () =>
        call<{ summary: Record<string, unknown>; changes: unknown[] }>(`/api/v1/email/monitors/${id}/run`, {
          method: "POST",
          ...bearer(key()),
        });

      const first = await run();
      expect(first.body.data.summary).toEqual({
        checked: 500,
        deliverable: 100,
        risky: 0,
        undeliverable: 400,
        changed: 0,
        new_baselines: 500,
        credits_used: 100,
        stopped_reason: null,
      });
      await expectPoliteSessions();

      // Every entry was deliverable when last seen: the next run reports the 400 unknown mailboxes as decayed.
      await env.DB.prepare(
        "UPDATE monitor_baselines SET answer = json_set(answer, '$.deliverable', 'deliverable', '$.reason', NULL) " +
          "WHERE monitor_id = ?",
      )
        .bind(id)
        .run();
      const second = await run();
      expect(second.body.data.summary).toMatchObject({ checked: 500, changed: 400, credits_used: 0 });

      const [delivery] = await deliveredAt(path, 1, 15_000);
      expect(delivery).toBeDefined();
      expect(new TextEncoder().encode(delivery!.body).byteLength).toBeGreaterThan(60 * 1024);
      expect(
        await new WebhookVerifier(created.body.data.webhook_secret).verify(delivery!.headers, delivery!.body),
      ).toBe("ok");
      const posted = JSON.parse(delivery!.body) as { summary: unknown; changes: unknown[] };
      expect(posted.summary).toEqual(second.body.data.summary);
      expect(posted.changes).toEqual(second.body.data.changes);
      expect(posted.changes).toHaveLength(400);
      const shown = await call<{ monitor: Record<string, unknown> }>(`/api/v1/email/monitors/${id}`, bearer(key()));
      expect(shown.body.data.monitor).toMatchObject({ webhook_status: "delivered", webhook_detail: "200" });
    },
  );
});
