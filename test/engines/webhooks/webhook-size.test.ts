import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../../../src/db/client";
import { webhookDeliveries } from "../../../src/db/schema";
import { INLINE_BODY_BYTES } from "../../../src/engines/webhooks/body-store";
import { attemptDelivery, BODY_GONE, enqueueDelivery, type Owner } from "../../../src/engines/webhooks/outbox";
import { mintSecret } from "../../../src/engines/webhooks/secret";
import { MAX_WEBHOOK_BODY_BYTES, tooLarge } from "../../../src/platform/webhooks";
import { sweepRetention } from "../../../workers/retention";
import { receivedAt, WebhookVerifier } from "../../webhook-receiver";

/**
 * Bodies of every size up to the documented limit (8 MiB) reach the receiver through the outbox, the real sidecar
 * relay and the fixture receiver, byte for byte and signed; over it, the delivery fails saying why. Each test plays
 * the queue's consumer itself (a recording queue), so nothing waits on queue delays.
 */
const uuid = () => crypto.randomUUID();
const record = (id: number) => database(env).select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();

function setup() {
  const sent: number[] = [];
  const queue = {
    send: async (body: { deliveryId: number }) => void sent.push(body.deliveryId),
  } as unknown as Queue<unknown>;
  return { sent, testEnv: { ...env, JOBS: queue } as Env };
}

/** A monitor-run-shaped JSON body of about `bytes` bytes, with characters JSON and the relay must carry exactly. */
function bodyOf(bytes: number): string {
  const entry = { identifier: "ñoño-ü@lists.example", input: 'say "hi" \\ there', changes: [{ field: "x", from: 1 }] };
  const one = JSON.stringify(entry).length + 1;
  const changes = Array.from({ length: Math.ceil(bytes / one) }, () => entry);
  return JSON.stringify({ event: "email_monitor.run", changes });
}

async function deliverOnce(body: string, owner: Owner = "monitor") {
  const { sent, testEnv } = setup();
  const path = `/ok/size-${uuid()}`;
  const secret = mintSecret();
  const id = await enqueueDelivery(testEnv, {
    owner,
    ownerId: uuid(),
    event: "email_monitor.run",
    url: `${env.RECEIVER_URL}${path}`,
    secret,
    body,
  });
  expect(sent).toEqual([id]);
  await attemptDelivery(testEnv, id, 1);
  return { id, path, secret };
}

describe("webhook bodies of any size up to the limit", () => {
  it("delivers a 3 MiB body (kept in R2, not the D1 row) byte for byte, signed", async () => {
    const body = bodyOf(3 * 1024 * 1024);
    const bytes = new TextEncoder().encode(body).byteLength;
    expect(bytes).toBeGreaterThan(INLINE_BODY_BYTES);
    const { id, path, secret } = await deliverOnce(body);
    const row = await record(id);
    expect(row).toMatchObject({ status: "delivered", detail: "200", attempts: 1, body: "" });
    expect(await (await env.RESULTS.get(row!.bodyKey!))?.text()).toBe(body);
    const [received] = await receivedAt(path);
    expect(received!.body).toBe(body);
    expect(received!.headers["content-length"]).toBe(String(bytes));
    expect(await new WebhookVerifier(secret).verify(received!.headers, received!.body)).toBe("ok");
  });

  it("keeps a body under 1 MiB in its row, and delivers a 200 KiB one (over the old 60 KiB relay limit)", async () => {
    const body = bodyOf(200 * 1024);
    const { id, path } = await deliverOnce(body);
    expect(await record(id)).toMatchObject({ status: "delivered", detail: "200", body, bodyKey: null });
    expect((await receivedAt(path))[0]!.body).toBe(body);
  });

  it("fails a body over 8 MiB at once, saying so, without sending it or retrying", async () => {
    const body = bodyOf(MAX_WEBHOOK_BODY_BYTES + 1024);
    const bytes = new TextEncoder().encode(body).byteLength;
    const { id, path } = await deliverOnce(body);
    expect(await record(id)).toMatchObject({ status: "failed", detail: tooLarge(bytes), attempts: 1 });
    expect(tooLarge(bytes)).toBe(`Not sent: the body is ${bytes} bytes, over the 8388608-byte webhook limit`);
    expect(await receivedAt(path)).toEqual([]);
  });

  it("fails, not retries, a delivery whose stored body is gone; the retention sweep deletes stored ones", async () => {
    const body = bodyOf(INLINE_BODY_BYTES + 1);
    const { sent, testEnv } = setup();
    const id = await enqueueDelivery(testEnv, {
      owner: "job",
      ownerId: uuid(),
      event: "bulk_email_job.finished",
      url: `${env.RECEIVER_URL}/ok/gone-${uuid()}`,
      secret: mintSecret(),
      body,
    });
    const { bodyKey } = (await record(id))!;
    await env.RESULTS.delete(bodyKey!);
    await attemptDelivery(testEnv, id, 1);
    expect(await record(id)).toMatchObject({ status: "failed", detail: BODY_GONE, attempts: 1 });
    expect(sent).toEqual([id]);

    // A job's record (a monitor's latest is kept past the window).
    const kept = await deliverOnce(bodyOf(INLINE_BODY_BYTES + 1), "job");
    const keptKey = (await record(kept.id))!.bodyKey!;
    const old = Date.now() - 31 * 86_400_000;
    await database(env).update(webhookDeliveries).set({ updatedAt: old }).where(eq(webhookDeliveries.id, kept.id));
    await sweepRetention(env);
    expect(await record(kept.id)).toBeUndefined();
    expect(await env.RESULTS.head(keptKey)).toBeNull();
  });
});
