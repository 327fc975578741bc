import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { database } from "../../../src/db/client";
import { webhookDeliveries } from "../../../src/db/schema";
import {
  attemptDelivery,
  enqueueDelivery,
  latestStatuses,
  redeliverLatest,
  requeueStalledDeliveries,
  STALE_DELIVERY_MS,
  type DeliveryMessage,
  type Owner,
} from "../../../src/engines/webhooks/outbox";
import { mintSecret } from "../../../src/engines/webhooks/secret";
import { receivedAt, WebhookVerifier } from "../../webhook-receiver";

interface Sent {
  body: DeliveryMessage;
  delaySeconds: number | undefined;
}

const isDeliveryMessage = (body: unknown): body is DeliveryMessage =>
  typeof body === "object" && body !== null && "type" in body && body.type === "delivery" && "deliveryId" in body;

/**
 * Stands in for the JOBS queue: it records what the outbox sends, so each test plays the consumer itself, one message
 * at a time, without waiting out real queue delays and without depending on how the Worker's consumer is wired.
 */
class RecordingQueue implements Queue<unknown> {
  sent: Sent[] = [];

  async metrics(): Promise<QueueMetrics> {
    return { backlogCount: this.sent.length, backlogBytes: 0 };
  }

  async send(body: unknown, options?: QueueSendOptions): Promise<QueueSendResponse> {
    if (!isDeliveryMessage(body)) throw new Error(`unexpected message ${JSON.stringify(body)}`);
    this.sent.push({ body, delaySeconds: options?.delaySeconds });
    return { metadata: { metrics: { backlogCount: this.sent.length, backlogBytes: 0 } } };
  }

  async sendBatch(
    messages: Iterable<MessageSendRequest<unknown>>,
    options?: QueueSendBatchOptions,
  ): Promise<QueueSendBatchResponse> {
    for (const m of messages) await this.send(m.body, { delaySeconds: m.delaySeconds ?? options?.delaySeconds });
    return { metadata: { metrics: { backlogCount: this.sent.length, backlogBytes: 0 } } };
  }

  /** Hands the oldest message to the consumer, as the queue would. */
  async deliverNext(testEnv: Env): Promise<Sent> {
    const next = this.sent.shift();
    if (!next) throw new Error("nothing queued");
    await attemptDelivery(testEnv, next.body.deliveryId, next.body.attempt);
    return next;
  }
}

function setup(vars: Partial<Env> = {}) {
  const queue = new RecordingQueue();
  const testEnv: Env = { ...env, ...vars, JOBS: queue };
  return { queue, testEnv };
}

const record = (id: number) => database(env).select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();

const uuid = () => crypto.randomUUID();

const jobBody = (id: number) =>
  JSON.stringify({ event: "bulk_email_job.finished", job: { id, status: "completed", total: 2, deliverable: 1 } });

async function enqueue(testEnv: Env, url: string, options: { owner?: Owner; ownerId?: string; body?: string } = {}) {
  const secret = mintSecret();
  const body = options.body ?? jobBody(Math.floor(Math.random() * 1e6));
  const ownerId = options.ownerId ?? uuid();
  const owner = options.owner ?? "job";
  const id = await enqueueDelivery(testEnv, { owner, ownerId, event: "bulk_email_job.finished", url, secret, body });
  return { id, secret, body, owner, ownerId, url };
}

const expectedDelay = (attempt: number, baseMs: number) => Math.ceil((baseMs * 3 ** (attempt - 2)) / 1000);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("webhook outbox", () => {
  it(
    "records a pending delivery, queues its first attempt, and delivers it with a V2 signature a receiver " +
      "verifies",
    async () => {
      const { queue, testEnv } = setup();
      const path = `/ok/outbox-${uuid()}`;
      const d = await enqueue(testEnv, `${env.RECEIVER_URL}${path}`);
      expect(d.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
      expect(queue.sent).toEqual([
        { body: { type: "delivery", deliveryId: d.id, attempt: 1 }, delaySeconds: undefined },
      ]);
      expect(await record(d.id)).toMatchObject({
        status: "pending",
        detail: null,
        attempts: 0,
        body: d.body,
        owner: "job",
        ownerId: d.ownerId,
      });
      expect((await latestStatuses(database(env), "job", [d.ownerId])).get(d.ownerId)).toEqual({
        status: "pending",
        detail: null,
        url: d.url,
      });

      await queue.deliverNext(testEnv);
      expect(await record(d.id)).toMatchObject({ status: "delivered", detail: "200", attempts: 1 });
      expect(queue.sent).toEqual([]);

      const [delivery, ...rest] = await receivedAt(path);
      expect(rest).toEqual([]);
      expect(delivery!.body).toBe(d.body);
      const verifier = new WebhookVerifier(d.secret);
      expect(await verifier.verify(delivery!.headers, delivery!.body)).toBe("ok");
      expect(await verifier.legacyMatches(delivery!.headers, delivery!.body)).toBe(true);
      expect(await new WebhookVerifier(mintSecret()).verify(delivery!.headers, delivery!.body)).toBe("bad_signature");
      expect((await latestStatuses(database(env), "job", [d.ownerId])).get(d.ownerId)).toEqual({
        status: "delivered",
        detail: "200",
        url: d.url,
      });
    },
  );

  it("retries a 500 as a separate, delayed queue message and is delivered at the second attempt", async () => {
    const { queue, testEnv } = setup();
    const name = `flaky-${uuid()}`;
    const d = await enqueue(testEnv, `${env.RECEIVER_URL}/fail-once/${name}`);

    expect((await queue.deliverNext(testEnv)).body.attempt).toBe(1);
    expect(await record(d.id)).toMatchObject({ status: "pending", detail: "500", attempts: 1 });
    expect(queue.sent).toEqual([
      {
        body: { type: "delivery", deliveryId: d.id, attempt: 2 },
        delaySeconds: expectedDelay(2, Number(env.WEBHOOK_RETRY_BASE_MS)),
      },
    ]);

    await queue.deliverNext(testEnv);
    expect(await record(d.id)).toMatchObject({ status: "delivered", detail: "200", attempts: 2 });
    expect(queue.sent).toEqual([]);
    const attempts = await receivedAt(`/fail-once/${name}`);
    expect(attempts).toHaveLength(2);
    const verifier = new WebhookVerifier(d.secret);
    for (const attempt of attempts) {
      expect(attempt.body).toBe(d.body);
      expect(await verifier.verify(attempt.headers, attempt.body)).not.toBe("bad_signature");
    }
  });

  it(
    "fails after three 500s with detail 500; a repeated message for an attempt already made sends " + "nothing",
    async () => {
      const { queue, testEnv } = setup();
      const path = `/status/500/outbox-${uuid()}`;
      const d = await enqueue(testEnv, `${env.RECEIVER_URL}${path}`);
      const delays: (number | undefined)[] = [];

      delays.push((await queue.deliverNext(testEnv)).delaySeconds);
      // The queue may hand the first message out twice: the attempt it was for is already made.
      await attemptDelivery(testEnv, d.id, 1);
      expect(await receivedAt(path)).toHaveLength(1);
      expect(queue.sent).toHaveLength(1);

      delays.push((await queue.deliverNext(testEnv)).delaySeconds);
      expect(await record(d.id)).toMatchObject({ status: "pending", detail: "500", attempts: 2 });
      delays.push((await queue.deliverNext(testEnv)).delaySeconds);
      expect(await record(d.id)).toMatchObject({ status: "failed", detail: "500", attempts: 3 });
      expect(queue.sent).toEqual([]);
      expect(await receivedAt(path)).toHaveLength(3);
      const base = Number(env.WEBHOOK_RETRY_BASE_MS);
      expect(delays).toEqual([undefined, expectedDelay(2, base), expectedDelay(3, base)]);
    },
  );

  it("waits 5 s then 15 s between attempts with the default backoff", async () => {
    const { queue, testEnv } = setup({ WEBHOOK_RETRY_BASE_MS: "5000" });
    const d = await enqueue(testEnv, `${env.RECEIVER_URL}/status/503/outbox-${uuid()}`);
    await queue.deliverNext(testEnv);
    expect(queue.sent[0]).toEqual({ body: { type: "delivery", deliveryId: d.id, attempt: 2 }, delaySeconds: 5 });
    await queue.deliverNext(testEnv);
    expect(queue.sent[0]).toEqual({ body: { type: "delivery", deliveryId: d.id, attempt: 3 }, delaySeconds: 15 });
  });

  it.each([
    ["a 302, without following it", "/status/302", "302"],
    ["a 404", "/status/404", "404"],
  ])("fails %s at once, with no retry queued", async (_label, route, detail) => {
    const { queue, testEnv } = setup();
    const path = `${route}/outbox-${uuid()}`;
    const d = await enqueue(testEnv, `${env.RECEIVER_URL}${path}`);
    await queue.deliverNext(testEnv);
    expect(await record(d.id)).toMatchObject({ status: "failed", detail, attempts: 1 });
    expect(queue.sent).toEqual([]);
    expect(await receivedAt(path)).toHaveLength(1);
  });

  it.each(["https://10.0.0.1/hook", "https://internal.example/hook", "https://[::ffff:10.0.0.1]/hook"])(
    "refuses the private destination %s with nothing sent and no retry",
    async (url) => {
      const { queue, testEnv } = setup();
      const d = await enqueue(testEnv, url);
      await queue.deliverNext(testEnv);
      expect(await record(d.id)).toMatchObject({ status: "failed", detail: "Refused: private address", attempts: 1 });
      expect(queue.sent).toEqual([]);
    },
  );

  it("redelivers the owner's latest record: byte-identical body, new V2 timestamp, same legacy signature", async () => {
    const { queue, testEnv } = setup();
    const ownerId = uuid();
    const older = await enqueue(testEnv, `${env.RECEIVER_URL}/status/404/outbox-${uuid()}`, { ownerId });
    await queue.deliverNext(testEnv);
    const path = `/ok/outbox-${uuid()}`;
    const d = await enqueue(testEnv, `${env.RECEIVER_URL}${path}`, { ownerId });
    await queue.deliverNext(testEnv);
    expect((await latestStatuses(database(env), "job", [ownerId])).get(ownerId)).toEqual({
      status: "delivered",
      detail: "200",
      url: `${env.RECEIVER_URL}${path}`,
    });

    // V2 timestamps are whole seconds: let the clock move past the first one.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await redeliverLatest(testEnv, "job", ownerId)).toBe(true);
    expect(await record(d.id)).toMatchObject({ status: "pending", detail: null, attempts: 0 });
    expect(queue.sent).toEqual([{ body: { type: "delivery", deliveryId: d.id, attempt: 1 }, delaySeconds: undefined }]);
    expect((await latestStatuses(database(env), "job", [ownerId])).get(ownerId)).toEqual({
      status: "pending",
      detail: null,
      url: `${env.RECEIVER_URL}${path}`,
    });
    await queue.deliverNext(testEnv);
    expect(await record(d.id)).toMatchObject({ status: "delivered", detail: "200", attempts: 1 });
    expect(await record(older.id)).toMatchObject({ status: "failed", detail: "404", attempts: 1 });

    const [first, second] = await receivedAt(path);
    expect(second!.body).toBe(first!.body);
    expect(second!.body).toBe(d.body);
    const stamp = (h: Record<string, string>) => Number(/^t=(\d+),/.exec(h["x-service-signature-v2"] ?? "")?.[1]);
    expect(stamp(second!.headers)).toBeGreaterThan(stamp(first!.headers));
    expect(second!.headers["x-service-signature"]).toBe(first!.headers["x-service-signature"]);
    const verifier = new WebhookVerifier(d.secret);
    expect(await verifier.verify(first!.headers, first!.body)).toBe("ok");
    expect(await verifier.verify(second!.headers, second!.body)).toBe("ok");

    expect(await redeliverLatest(testEnv, "job", uuid())).toBe(false);
    expect(await redeliverLatest(testEnv, "monitor", ownerId)).toBe(false);
  });

  it("does nothing for a duplicate or redelivered message once the delivery succeeded", async () => {
    const { queue, testEnv } = setup();
    const path = `/ok/outbox-${uuid()}`;
    const d = await enqueue(testEnv, `${env.RECEIVER_URL}${path}`);
    const message = await queue.deliverNext(testEnv);
    const after = await record(d.id);
    await attemptDelivery(testEnv, message.body.deliveryId, message.body.attempt);
    await attemptDelivery(testEnv, d.id, 2);
    await attemptDelivery(testEnv, d.id);
    expect(await receivedAt(path)).toHaveLength(1);
    expect(await record(d.id)).toEqual(after);
    expect(queue.sent).toEqual([]);
  });

  it("sweeps a pending record whose message was lost, once, then delivers it", async () => {
    const { queue, testEnv } = setup();
    const path = `/ok/outbox-${uuid()}`;
    const d = await enqueue(testEnv, `${env.RECEIVER_URL}${path}`);
    queue.sent = []; // the first message never reached a consumer (a crash)
    // Fresh pending records are left to their messages.
    await requeueStalledDeliveries(testEnv);
    expect(queue.sent.filter((s) => s.body.deliveryId === d.id)).toEqual([]);
    queue.sent = [];
    // Interrupted after its first attempt, long ago: the sweep queues the second.
    const longAgo = Date.now() - STALE_DELIVERY_MS - 1_000;
    await database(env)
      .update(webhookDeliveries)
      .set({ attempts: 1, detail: "500", updatedAt: longAgo })
      .where(eq(webhookDeliveries.id, d.id));

    expect(await requeueStalledDeliveries(testEnv)).toBeGreaterThanOrEqual(1);
    const mine = queue.sent.filter((s) => s.body.deliveryId === d.id);
    expect(mine).toEqual([{ body: { type: "delivery", deliveryId: d.id, attempt: 2 }, delaySeconds: undefined }]);
    queue.sent = mine;
    // Claimed: the next sweep leaves it to the message just queued.
    await requeueStalledDeliveries(testEnv);
    expect(queue.sent.filter((s) => s.body.deliveryId === d.id)).toEqual(mine);
    queue.sent = mine;

    await queue.deliverNext(testEnv);
    expect(await record(d.id)).toMatchObject({ status: "delivered", detail: "200", attempts: 2 });
    expect(await receivedAt(path)).toHaveLength(1);
  });

  it("reads the latest status of many owners at once; owners without a record are absent", async () => {
    const { queue, testEnv } = setup();
    const owned = await enqueue(testEnv, `${env.RECEIVER_URL}/status/404/outbox-${uuid()}`, { owner: "monitor" });
    await queue.deliverNext(testEnv);
    const strangers = Array.from({ length: 150 }, () => uuid());
    const statuses = await latestStatuses(database(env), "monitor", [
      ...strangers.slice(0, 120),
      owned.ownerId,
      ...strangers.slice(120),
    ]);
    expect([...statuses]).toEqual([[owned.ownerId, { status: "failed", detail: "404", url: owned.url }]]);
    expect((await latestStatuses(database(env), "job", [owned.ownerId])).size).toBe(0);
    expect((await latestStatuses(database(env), "monitor", [])).size).toBe(0);
  });
});
