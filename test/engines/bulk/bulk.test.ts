import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import type { JobMessage } from "../../../src/queue";
import { anotherKey, bearer, call, createAccount, accountObject, json, type TestAccount } from "../../helpers";
import { receivedAt, WebhookVerifier } from "../../webhook-receiver";
import { fetchChecked } from "../../openapi-check";

interface Job {
  id: number;
  status: string;
  total: number;
  duplicate_count: number;
  processed: number;
  deliverable: number;
  risky: number;
  undeliverable: number;
  credits_used: number;
  stopped_reason: string | null;
  cancel_requested: boolean;
  webhook_status: string | null;
  webhook_detail: string | null;
}

const create = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call<{ job: Job; webhook_secret: string | null }>(
    "/api/v1/email/bulk",
    json(body, { Authorization: `Bearer ${key}`, ...headers }),
  );

/** Polls with a pool of keys (5 requests a second each) until the run settles. */
async function settled(acct: TestAccount, jobId: number, timeoutMs = 20_000): Promise<Job> {
  const keys = [acct.key, await anotherKey(acct), await anotherKey(acct)];
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; Date.now() < deadline; i++) {
    const { body } = await call<{ job: Job }>(`/api/v1/email/bulk/${jobId}`, bearer(keys[i % keys.length]!));
    if (!["queued", "processing"].includes(body.data.job.status)) return body.data.job;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`job ${jobId} did not settle`);
}

const TEST_MIX = [
  "deliverable@service.test",
  "undeliverable@service.test",
  "role+1@service.test",
  "DELIVERABLE@service.test",
  "not an address",
  "alice@acme.example",
];

describe("POST /api/v1/email/bulk", () => {
  it(
    "runs through the queue: rows bill like single lookups, duplicates verified once, CSV results with " +
      "did_you_mean",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const { status, body } = await create(acct.key, { emails: TEST_MIX });
      expect(status).toBe(202);
      expect(body.data.job).toMatchObject({ status: "queued", total: 6, duplicate_count: 1, processed: 0 });
      expect(body.data.webhook_secret).toBeNull();
      const job = await settled(acct, body.data.job.id);
      expect(job).toMatchObject({
        status: "completed",
        processed: 6,
        deliverable: 3,
        risky: 1,
        undeliverable: 2,
        credits_used: 1,
        stopped_reason: null,
      });
      expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(9);

      const key = await anotherKey(acct);
      const results = await (await fetchRaw(`/api/v1/email/bulk/${job.id}/results`, key)).text();
      const [header, ...rows] = results.trim().split("\n");
      expect(header).toContain("did_you_mean");
      expect(header!.startsWith("index,input,email")).toBe(true);
      expect(rows.map((r) => Number(r.split(",")[0])).sort()).toEqual([0, 1, 2, 3, 4, 5]);
      const byIndex = new Map(rows.map((r) => [Number(r.split(",")[0]), r.split(",")]));
      const credits = header!.split(",").indexOf("credits_used");
      // The repeat at index 3 keeps its own spelling and is not charged again.
      expect(byIndex.get(3)![1]).toBe("DELIVERABLE@service.test");
      expect(byIndex.get(3)![credits]).toBe("0");
      expect(rows.reduce((sum, r) => sum + Number(r.split(",")[credits]), 0)).toBe(1);
      const undeliverable = await (
        await fetchRaw(`/api/v1/email/bulk/${job.id}/results?variant=undeliverable`, key)
      ).text();
      expect(undeliverable.trim().split("\n")).toHaveLength(3);
    },
  );

  it(
    "replays the first answer for the same Idempotency-Key and body, webhook_secret included; 409 " + "otherwise",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const url = `${env.RECEIVER_URL}/ok/idem-${crypto.randomUUID()}`;
      const first = await create(
        acct.key,
        { emails: ["deliverable@service.test"], webhook_url: url },
        { "Idempotency-Key": "abc" },
      );
      const again = await create(
        acct.key,
        { emails: ["deliverable@service.test"], webhook_url: url },
        { "Idempotency-Key": "abc" },
      );
      expect(again.status).toBe(202);
      expect(again.body.data).toEqual(first.body.data);
      expect(first.body.data.webhook_secret).toMatch(/^whsec_/);
      const other = await create(
        acct.key,
        { emails: ["role@service.test"], webhook_url: url },
        { "Idempotency-Key": "abc" },
      );
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
      const otherUrl = await create(acct.key, { emails: ["deliverable@service.test"] }, { "Idempotency-Key": "abc" });
      expect(otherUrl.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    },
  );

  it(
    "posts a signed completion webhook the receiver can verify, and redelivers the same bytes with a new " +
      "timestamp",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const path = `/ok/bulk-${crypto.randomUUID()}`;
      const { body } = await create(acct.key, {
        emails: ["deliverable@service.test", "undeliverable@service.test"],
        webhook_url: `${env.RECEIVER_URL}${path}`,
      });
      const job = await settled(acct, body.data.job.id);
      let deliveries = await waitFor(
        () => receivedAt(path),
        (d) => d.length === 1,
      );
      const verifier = new WebhookVerifier(body.data.webhook_secret!);
      expect(await verifier.verify(deliveries[0]!.headers, deliveries[0]!.body)).toBe("ok");
      expect(JSON.parse(deliveries[0]!.body)).toEqual({
        event: "bulk_email_job.finished",
        job: {
          id: job.id,
          status: "completed",
          total: 2,
          processed: 2,
          deliverable: 1,
          risky: 0,
          undeliverable: 1,
          credits_used: 0,
          stopped_reason: null,
          finished_at: expect.any(String),
        },
      });
      const polled = await waitFor(
        async () =>
          (await call<{ job: Job }>(`/api/v1/email/bulk/${job.id}`, bearer(await anotherKey(acct)))).body.data.job,
        (j) => j.webhook_status === "delivered",
      );
      expect(polled.webhook_detail).toBe("200");

      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const redeliver = await call<{ job: Job }>(`/api/v1/email/bulk/${job.id}/webhook/redeliver`, {
        method: "POST",
        ...bearer(await anotherKey(acct)),
      });
      expect(redeliver.status).toBe(202);
      expect(redeliver.body.data.job.webhook_status).toBe("pending");
      deliveries = await waitFor(
        () => receivedAt(path),
        (d) => d.length === 2,
      );
      expect(deliveries[1]!.body).toBe(deliveries[0]!.body);
      expect(deliveries[1]!.headers["x-service-signature"]).toBe(deliveries[0]!.headers["x-service-signature"]);
      expect(deliveries[1]!.headers["x-service-signature-v2"]).not.toBe(
        deliveries[0]!.headers["x-service-signature-v2"],
      );
      expect(await verifier.verify(deliveries[1]!.headers, deliveries[1]!.body)).toBe("ok");
    },
  );

  it("stops with insufficient_credits when the balance runs out, and resumes after a top-up", async () => {
    const acct = await createAccount({ pack: 1 });
    const { body } = await create(acct.key, {
      emails: ["henry@acme.example", "ivy@acme.example", "jack@acme.example"],
    });
    const stopped = await settled(acct, body.data.job.id);
    expect(stopped).toMatchObject({
      status: "completed",
      processed: 1,
      credits_used: 1,
      stopped_reason: "insufficient_credits",
    });
    const key = await anotherKey(acct);
    const partial = await (await fetchRaw(`/api/v1/email/bulk/${stopped.id}/results`, key)).text();
    expect(partial.trim().split("\n")).toHaveLength(2);
    await accountObject(acct.accountId).addCredits({ bucket: "pack", amount: 5, note: null, requestId: null });
    const resumed = await call<{ job: Job }>(`/api/v1/email/bulk/${stopped.id}/resume`, {
      method: "POST",
      ...bearer(key),
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.job.status).toBe("processing");
    const done = await settled(acct, stopped.id);
    expect(done).toMatchObject({ status: "completed", processed: 3, credits_used: 3, stopped_reason: null });
    const again = await call(`/api/v1/email/bulk/${stopped.id}/resume`, {
      method: "POST",
      ...bearer(await anotherKey(acct)),
    });
    expect(again.body.error.code).toBe("JOB_NOT_RESUMABLE");
  });

  it(
    "answers 409 JOB_ALREADY_FINISHED to cancel a settled run, RESULTS_NOT_READY while running, 404 for another " +
      "account",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const other = await createAccount({ pack: 5 });
      const { body } = await create(acct.key, { emails: ["deliverable@service.test"] });
      await settled(acct, body.data.job.id);
      const key = await anotherKey(acct);
      const cancel = await call(`/api/v1/email/bulk/${body.data.job.id}/cancel`, { method: "POST", ...bearer(key) });
      expect(cancel.status).toBe(409);
      expect(cancel.body.error.code).toBe("JOB_ALREADY_FINISHED");
      expect((await call(`/api/v1/email/bulk/${body.data.job.id}`, bearer(other.key))).status).toBe(404);
      const redeliver = await call(`/api/v1/email/bulk/${body.data.job.id}/webhook/redeliver`, {
        method: "POST",
        ...bearer(key),
      });
      expect(redeliver.body.error.code).toBe("WEBHOOK_NOT_CONFIGURED");
    },
  );

  it(
    "cancels a queued run at once; results then answer JOB_CANCELLED, RESULTS_NOT_READY while going, " + "JOB_FAILED",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const { body } = await create(acct.key, { emails: ["deliverable@service.test"] });
      const id = body.data.job.id;
      await settled(acct, id);
      const key = await anotherKey(acct);
      const setState = (status: string) =>
        env.DB.prepare(
          "UPDATE bulk_jobs SET status = ?, processed = 0, next_entry = 0, finished_at = NULL WHERE id = ?",
        )
          .bind(status, id)
          .run();
      await setState("processing");
      expect((await call(`/api/v1/email/bulk/${id}/results`, bearer(key))).body.error.code).toBe("RESULTS_NOT_READY");
      await setState("failed");
      expect((await call(`/api/v1/email/bulk/${id}/results`, bearer(key))).body.error.code).toBe("JOB_FAILED");
      await setState("queued");
      const cancelled = await call<{ job: Job }>(`/api/v1/email/bulk/${id}/cancel`, { method: "POST", ...bearer(key) });
      expect(cancelled.body.data.job).toMatchObject({ status: "cancelled", cancel_requested: true });
      expect((await call(`/api/v1/email/bulk/${id}/results`, bearer(key))).body.error.code).toBe("JOB_CANCELLED");
      expect(
        (await call(`/api/v1/email/bulk/${id}/webhook/redeliver`, { method: "POST", ...bearer(key) })).body.error.code,
      ).toBe("WEBHOOK_NOT_CONFIGURED");
    },
  );

  it(
    "answers JOB_NOT_FINISHED to a redelivery while the run is going, after checking the webhook is " + "configured",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const { body } = await create(acct.key, {
        emails: ["deliverable@service.test"],
        webhook_url: `${env.RECEIVER_URL}/ok/nf-${crypto.randomUUID()}`,
      });
      await settled(acct, body.data.job.id);
      await env.DB.prepare("UPDATE bulk_jobs SET status = 'processing' WHERE id = ?").bind(body.data.job.id).run();
      const { status, body: error } = await call(`/api/v1/email/bulk/${body.data.job.id}/webhook/redeliver`, {
        method: "POST",
        ...bearer(await anotherKey(acct)),
      });
      expect(status).toBe(409);
      expect(error.error.code).toBe("JOB_NOT_FINISHED");
    },
  );

  it(
    "lists runs newest first with filters that combine and retention in meta; 422 for an unknown status or bad " +
      "date",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const a = await create(acct.key, { emails: ["deliverable@service.test"] });
      const b = await create(acct.key, { emails: ["role@service.test"] });
      await settled(acct, b.body.data.job.id);
      await settled(acct, a.body.data.job.id);
      const key = await anotherKey(acct);
      const list = await call<{ jobs: Job[] }>("/api/v1/email/bulk?status=completed", bearer(key));
      expect(list.body.data.jobs.map((j) => j.id)).toEqual([b.body.data.job.id, a.body.data.job.id]);
      expect(list.body.meta).toMatchObject({ page: 1, per_page: 100, total: 2, retention_days: 30 });
      const none = await call<{ jobs: Job[] }>("/api/v1/email/bulk?until=2020-01-01", bearer(key));
      expect(none.body.data.jobs).toEqual([]);
      expect((await call("/api/v1/email/bulk?status=paused", bearer(key))).status).toBe(422);
      expect((await call("/api/v1/email/bulk?since=last-week", bearer(key))).status).toBe(422);
    },
  );

  it("processes a redelivered queue message without losing, duplicating or double-billing a row", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await create(acct.key, { emails: ["frank@acme.example", "grace@acme.example"] });
    const job = await settled(acct, body.data.job.id);
    expect(job).toMatchObject({ processed: 2, credits_used: 2 });
    await env.DB.prepare("UPDATE bulk_jobs SET status = 'processing', next_entry = 0, finished_at = NULL WHERE id = ?")
      .bind(job.id)
      .run();
    const message = {
      id: "redelivered",
      timestamp: new Date(),
      attempts: 2,
      body: { type: "run", jobId: job.id } as JobMessage,
    };
    for (const attempt of [1, 2]) {
      const ctx = createExecutionContext();
      const batch = createMessageBatch<JobMessage>("verification-jobs", [{ ...message, id: `m${attempt}` }]);
      await worker.queue(batch, env, ctx);
      expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual([`m${attempt}`]);
    }
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(8);
    const after = await call<{ job: Job }>(`/api/v1/email/bulk/${job.id}`, bearer(await anotherKey(acct)));
    expect(after.body.data.job.status).toBe("completed");
  });

  it("validates the request: up to 100,000 addresses, https webhook_url", async () => {
    const acct = await createAccount({ pack: 1 });
    expect((await create(acct.key, { emails: [] })).status).toBe(422);
    const insecure = await create(acct.key, { emails: ["a@b.c"], webhook_url: "http://example.com/hook" });
    expect(Object.keys(insecure.body.error.errors!)).toEqual(["webhook_url"]);
  });
});

async function fetchRaw(path: string, key: string) {
  return fetchChecked(`https://api.test${path}`, bearer(key));
}

async function waitFor<T>(read: () => Promise<T>, ready: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!ready(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}
