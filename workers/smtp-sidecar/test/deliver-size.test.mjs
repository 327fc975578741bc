// Webhook bodies through POST /v1/deliver at the documented limit (8 MiB) and one byte over, with the Worker's own
// client (src/platform/delivery-relay.ts): at the limit the receiver gets every byte, even when JSON escaping doubles
// the request; over it the relay says why instead of looking like a connection failure.
import http from "node:http";
import { describe, expect, it } from "vitest";
import { relayDelivery } from "../../../src/platform/delivery-relay.ts";
import { MAX_WEBHOOK_BODY_BYTES } from "../../../src/platform/webhooks.ts";
import { MAX_DELIVER_BODY_BYTES } from "../deliver.mjs";
import { closedAfterEach, SECRET, startSidecar } from "./helpers.mjs";

const cleanups = closedAfterEach();

async function setup() {
  const received = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      received.push(Buffer.concat(chunks));
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const sidecar = await startSidecar();
  cleanups.push(() => new Promise((resolve) => server.close(resolve)), sidecar.close);
  const relay = (body) =>
    relayDelivery({ url: sidecar.url }, SECRET, {
      url: `http://127.0.0.1:${server.address().port}/hook`,
      address: "127.0.0.1",
      body,
      headers: {},
      timeoutMs: 20_000,
    });
  return { relay, received };
}

describe("webhook bodies through the relay", () => {
  it("takes the Worker's limit", () => {
    expect(MAX_DELIVER_BODY_BYTES).toBe(MAX_WEBHOOK_BODY_BYTES);
    expect(MAX_WEBHOOK_BODY_BYTES).toBe(8 * 1024 * 1024);
  });

  it("delivers a body of exactly the limit, all quotes (the request twice its size), byte for byte", async () => {
    const { relay, received } = await setup();
    const body = '"'.repeat(MAX_WEBHOOK_BODY_BYTES);
    expect(await relay(body)).toEqual({ status: 200 });
    expect(received).toHaveLength(1);
    expect(received[0].byteLength).toBe(MAX_WEBHOOK_BODY_BYTES);
    expect(received[0].toString("utf8") === body).toBe(true);
  });

  it("delivers a 1 MiB body of multi-byte text unchanged (the old relay refused anything over 60 KiB)", async () => {
    const { relay, received } = await setup();
    const body = JSON.stringify({ changes: "ñoño ü € 😀 ".repeat((1024 * 1024) / 24) });
    expect(await relay(body)).toEqual({ status: 200 });
    expect(received[0].toString("utf8") === body).toBe(true);
  });

  it("refuses one byte over the limit as a refusal naming the limit, not a connection failure", async () => {
    const { relay, received } = await setup();
    expect(await relay("x".repeat(MAX_WEBHOOK_BODY_BYTES + 1))).toEqual({
      error: "rejected",
      detail: `the delivery relay refused the request (body must be text of at most ${MAX_WEBHOOK_BODY_BYTES} bytes)`,
    });
    expect(received).toEqual([]);
  });
});
