import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  attemptDelivery,
  enqueueDelivery,
  redeliverLatest,
  type DeliveryMessage,
} from "../../../src/engines/webhooks/outbox";
import { mintSecret } from "../../../src/engines/webhooks/secret";
import { call, createAccount, json } from "../../helpers";
import { receivedAt } from "../../webhook-receiver";

/** Plays the JOBS queue: keeps what the outbox sends so each test hands the messages to the consumer itself. */
function recordingEnv() {
  const sent: DeliveryMessage[] = [];
  const queue = {
    send: async (body: DeliveryMessage) => void sent.push(body),
    sendBatch: async () => undefined,
  } as unknown as Queue<unknown>;
  const next = async (testEnv: Env) => {
    const message = sent.shift();
    if (!message) throw new Error("nothing queued");
    await attemptDelivery(testEnv, message.deliveryId, message.attempt);
  };
  return { testEnv: { ...env, JOBS: queue } as Env, next };
}

const body = JSON.stringify({ event: "bulk_email_job.finished", job: { id: "job_1", status: "completed" } });

describe("Webhook-Delivery-Id (docs/jobs-and-webhooks.md)", () => {
  it(
    "carries the same id on every attempt of one delivery and on its redelivery, received by a real HTTP " + "server",
    async () => {
      const { testEnv, next } = recordingEnv();
      const path = `/fail-once/delivery-id-${crypto.randomUUID()}`;
      const ownerId = crypto.randomUUID();
      const id = await enqueueDelivery(testEnv, {
        owner: "job",
        ownerId,
        event: "bulk_email_job.finished",
        url: `${env.RECEIVER_URL}${path}`,
        secret: mintSecret(),
        body,
      });
      await next(testEnv); // 500: retried
      await next(testEnv); // 200
      expect(await redeliverLatest(testEnv, "job", ownerId)).toBe(true);
      await next(testEnv);
      const attempts = await receivedAt(path);
      expect(attempts).toHaveLength(3);
      expect(attempts.map((a) => a.headers["webhook-delivery-id"])).toEqual([`whd_${id}`, `whd_${id}`, `whd_${id}`]);
      expect(attempts.every((a) => a.body === body)).toBe(true);
    },
  );

  it("gives two deliveries two different ids", async () => {
    const { testEnv, next } = recordingEnv();
    const path = `/ok/delivery-id-${crypto.randomUUID()}`;
    for (let i = 0; i < 2; i++) {
      await enqueueDelivery(testEnv, {
        owner: "job",
        ownerId: crypto.randomUUID(),
        event: "bulk_email_job.finished",
        url: `${env.RECEIVER_URL}${path}`,
        secret: mintSecret(),
        body,
      });
      await next(testEnv);
    }
    const ids = (await receivedAt(path)).map((a) => a.headers["webhook-delivery-id"]);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^whd_\d+$/);
    expect(ids[1]).toMatch(/^whd_\d+$/);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it("marks a test delivery (POST /webhooks/test) with a whd_test_ id of its own", async () => {
    const acct = await createAccount();
    const path = `/ok/delivery-id-test-${crypto.randomUUID()}`;
    const sendTest = () =>
      call(
        "/api/v1/webhooks/test",
        json(
          { url: `${env.RECEIVER_URL}${path}`, event: "bulk_email_job.finished" },
          { Authorization: `Bearer ${acct.key}` },
        ),
      );
    expect((await sendTest()).status).toBe(200);
    expect((await sendTest()).status).toBe(200);
    const ids = (await receivedAt(path)).map((a) => a.headers["webhook-delivery-id"]);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^whd_test_[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
