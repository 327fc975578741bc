/**
 * Completion webhooks, once per product with `bulk` (spec "Events": bodies 1, delivery rules, signature; "POST
 * /api/v1/{product}/bulk/{jobId}/webhook/redeliver" rule 1; "POST /api/v1/webhooks/test"). The queue is recorded so
 * the test makes each outbox attempt itself; deliveries are checked as a receiver would check them.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { createJob } from "../../src/engines/bulk/create";
import { jobById, jobViewOf } from "../../src/engines/bulk/jobs";
import { runJob } from "../../src/engines/bulk/run";
import type { Product } from "../../src/engines/product";
import { attemptDelivery, redeliverLatest, type DeliveryMessage } from "../../src/engines/webhooks/outbox";
import { registeredProducts } from "../../src/products/registry";
import { call, createAccount, json } from "../helpers";
import { receivedAt, WebhookVerifier } from "../webhook-receiver";
import { capturedQueue, countersOf, funded, lookupWith, rand, setUp, subjectsWith, type Samples } from "./helpers";

const SUBJECTS = subjectsWith((p) => p.bulk);
beforeAll(() => setUp(SUBJECTS));

/** Runs a small list with a webhook to the end and makes the outbox's first attempt; the run's job and its delivery. */
async function finishedWithWebhook(product: Product, samples: Samples) {
  const acct = await funded(5);
  const path = `/ok/contract-bulk-${rand()}`;
  const queue = capturedQueue();
  const inputs = [...samples.paid(1), samples.free(), samples.malformed()];
  const created = await createJob(queue.env, product, {
    accountId: acct.accountId,
    keyId: acct.keyId,
    inputs,
    options: {},
    webhookUrl: `${env.RECEIVER_URL}${path}`,
    idempotencyKey: null,
  });
  await runJob(queue.env, created.row.id, lookupWith(product));
  const attempt = async () => {
    const message = queue.sent.filter((m): m is DeliveryMessage => (m as DeliveryMessage).type === "delivery").at(-1)!;
    await attemptDelivery(env, message.deliveryId, message.attempt);
  };
  await attempt();
  return { id: created.row.id, secret: created.webhookSecret!, path, queue, attempt };
}

describe.each(SUBJECTS)("completion webhooks: $label", ({ product, samples }) => {
  it(
    "posts bulk_<product>_job.finished with the product's counters through the outbox, signed for the " + "receiver",
    async () => {
      const { id, secret, path } = await finishedWithWebhook(product, samples);
      const [delivery, ...more] = await receivedAt(path);
      expect(more).toEqual([]);
      expect(await new WebhookVerifier(secret).verify(delivery!.headers, delivery!.body)).toBe("ok");
      const row = (await jobById(database(env), id))!;
      const body = JSON.parse(delivery!.body);
      expect(body.event).toBe(`bulk_${product.name}_job.finished`);
      expect(Object.keys(body.job)).toEqual([
        "id",
        "status",
        "total",
        "processed",
        ...product.bulk!.counters,
        "credits_used",
        "stopped_reason",
        "finished_at",
      ]);
      expect(body.job).toMatchObject({
        id,
        status: "completed",
        total: 3,
        processed: 3,
        ...row.counts,
        credits_used: 1,
        stopped_reason: null,
      });
      const rowCounts = (["paid", "free", "malformed"] as const).reduce(
        (sum, k) => sum + countersOf(samples, k).length,
        0,
      );
      expect(product.bulk!.counters.reduce((sum, c) => sum + body.job[c], 0)).toBe(rowCounts);
      expect(body.job.finished_at).toBe(new Date(row.finishedAt!).toISOString());
      const stored = await env.DB.prepare("SELECT body FROM webhook_deliveries WHERE owner = 'job' AND owner_id = ?")
        .bind(String(id))
        .first<{ body: string }>();
      expect(stored!.body).toBe(delivery!.body);
      expect(await jobViewOf(database(env), row)).toMatchObject({ webhook_status: "delivered", webhook_detail: "200" });
    },
  );

  it("redelivers the same bytes and legacy signature, with a new V2 timestamp a receiver accepts", async () => {
    const { id, secret, path, queue, attempt } = await finishedWithWebhook(product, samples);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await redeliverLatest(queue.env, "job", String(id))).toBe(true);
    expect(await jobViewOf(database(env), (await jobById(database(env), id))!)).toMatchObject({
      webhook_status: "pending",
    });
    await attempt();
    const [first, second] = await receivedAt(path);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers["x-service-signature"]).toBe(first!.headers["x-service-signature"]);
    expect(second!.headers["x-service-signature-v2"]).not.toBe(first!.headers["x-service-signature-v2"]);
    const verifier = new WebhookVerifier(secret);
    expect([
      await verifier.verify(first!.headers, first!.body),
      await verifier.verify(second!.headers, second!.body),
    ]).toEqual(["ok", "ok"]);
  });
});

const TEST_EVENTS = registeredProducts()
  .filter((p) => p.bulk)
  .map((product) => ({ event: `bulk_${product.name}_job.finished`, product }));

describe.each(TEST_EVENTS)("POST /api/v1/webhooks/test: $event", ({ event, product }) => {
  it("carries the product's sample counters, total and processed being the rows they count", async () => {
    const acct = await createAccount();
    const path = `/ok/contract-test-${rand()}`;
    const { status, body } = await call<{ delivered: boolean; secret: string; body: string }>(
      "/api/v1/webhooks/test",
      json({ url: `${env.RECEIVER_URL}${path}`, event }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect([status, body.data.delivered]).toEqual([200, true]);
    const posted = JSON.parse(body.data.body);
    const counts = product.bulk!.sampleCounts;
    const total = product.bulk!.sampleTotal ?? Object.values(counts).reduce((sum, n) => sum + n, 0);
    expect(Object.keys(counts).sort()).toEqual([...product.bulk!.counters].sort());
    expect(posted).toMatchObject({ test: true, event, job: { ...counts, total, processed: total } });
    const [delivery] = await receivedAt(path);
    expect(delivery!.body).toBe(body.data.body);
    expect(await new WebhookVerifier(body.data.secret).verify(delivery!.headers, delivery!.body)).toBe("ok");
  });
});
