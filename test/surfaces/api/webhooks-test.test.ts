import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { eventNames } from "../../../src/engines/webhooks/events";
import { sampleBody } from "../../../src/engines/webhooks/samples";
import { monitoredProduct, productNamed, registeredProducts } from "../../../src/products/registry";
import { mintSecret } from "../../../src/engines/webhooks/secret";
import { OLD_SIGNATURE_UNTIL, sign, signatureHeaders } from "../../../src/platform/webhooks";
import { isPrivateAddress } from "../../../src/platform/private-addresses";
import { anotherKey, call, createAccount, json, lookupEmail } from "../../helpers";
import { receivedAt, WebhookVerifier } from "../../webhook-receiver";

const EVENTS = eventNames(registeredProducts());

interface TestDelivery {
  delivered: boolean;
  status_code: number;
  detail: string;
  secret: string;
  signature: string;
  timestamped_signature: string;
  timestamp: number;
  body: string;
}

const sendTest = (key: string, url: string, event = "bulk_email_job.finished") =>
  call<TestDelivery>("/api/v1/webhooks/test", json({ url, event }, { Authorization: `Bearer ${key}` }));

const unique = (path: string) => `${path}-${crypto.randomUUID()}`;

describe("POST /api/v1/webhooks/test", () => {
  it("posts a fixed body starting with test: true, signed with both headers, that a receiver can verify", async () => {
    const acct = await createAccount();
    const path = unique("/ok/test");
    const { status, body } = await sendTest(acct.key, `${env.RECEIVER_URL}${path}`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ delivered: true, status_code: 200, detail: "200" });
    expect(body.data.secret).toMatch(/^whsec_/);
    expect(body.data.body.startsWith('{"test":true,')).toBe(true);
    expect(JSON.parse(body.data.body)).toMatchObject({
      test: true,
      event: "bulk_email_job.finished",
      job: { id: expect.any(Number) },
    });

    const [delivery] = await receivedAt(path);
    expect(delivery!.body).toBe(body.data.body);
    expect(delivery!.headers["x-service-signature-v2"]).toBe(body.data.timestamped_signature);
    expect(body.data.timestamped_signature).toBe(
      `t=${body.data.timestamp},v2=${body.data.timestamped_signature.split("v2=")[1]}`,
    );
    const verifier = new WebhookVerifier(body.data.secret);
    expect(await verifier.verify(delivery!.headers, delivery!.body)).toBe("ok");
    expect(await verifier.verify(delivery!.headers, delivery!.body)).toBe("replay");
    expect(await verifier.legacyMatches(delivery!.headers, delivery!.body)).toBe(true);
    expect(delivery!.headers["x-service-signature"]).toBe(body.data.signature);
    expect(await new WebhookVerifier("whsec_wrong").verify(delivery!.headers, delivery!.body)).toBe("bad_signature");
    expect(await verifier.verify(delivery!.headers, delivery!.body, Date.now() + 301_000)).toBe("stale");
  });

  it("copies nothing from the request into the body but the chosen event", async () => {
    const acct = await createAccount();
    const { body } = await sendTest(acct.key, `${env.RECEIVER_URL}${unique("/ok/settled")}?inject=1`, "email.settled");
    expect(JSON.parse(body.data.body)).toMatchObject({ test: true, event: "email.settled", settled: true, attempt: 1 });
    expect(body.data.body).not.toContain("inject");
  });

  it.each([
    ["a 500 after three attempts", "/status/500", "500", 3],
    ["a 302 without following it", "/status/302", "302", 1],
    ["a 404 without retrying", "/status/404", "404", 1],
    ["a receiver that hangs, at the timeout", "/hang", "Timed out after 400 ms", 3],
    ["a dropped connection", "/close", "Connection failed: dropped before an answer", 3],
  ])("reports %s as not delivered", async (_label, route, detail, attempts) => {
    const acct = await createAccount();
    const path = unique(route);
    const { body } = await sendTest(acct.key, `${env.RECEIVER_URL}${path}`);
    expect(body.data.delivered).toBe(false);
    expect(body.data.detail).toBe(detail);
    expect(await receivedAt(path)).toHaveLength(attempts);
  });

  it("reports a closed port in plain words, never the runtime's internal error reference", async () => {
    const acct = await createAccount();
    const { body } = await sendTest(acct.key, "http://127.0.0.1:9/hook");
    expect(body.data.delivered).toBe(false);
    expect(body.data.detail).toMatch(/^Connection failed(: [a-z ]+)?$/);
  });

  it.each([
    "https://10.0.0.1/hook",
    "https://[::ffff:10.0.0.1]/hook",
    "https://169.254.169.254/latest",
    "https://internal.example/hook",
    "https://mapped.example/hook",
  ])("refuses %s with nothing sent: delivered false, detail Refused: private address", async (url) => {
    const acct = await createAccount();
    const { status, body } = await sendTest(acct.key, url);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ delivered: false, status_code: 0, detail: "Refused: private address" });
  });

  it("does not accept a non-https URL", async () => {
    const acct = await createAccount();
    const { status, body } = await sendTest(acct.key, "http://example.com/hook");
    expect(status).toBe(422);
    expect(Object.keys(body.error.errors!)).toEqual(["url"]);
  });

  it("answers 422 for an unknown event", async () => {
    const acct = await createAccount();
    const { status } = await sendTest(acct.key, `${env.RECEIVER_URL}/ok/x`, "email.bounced");
    expect(status).toBe(422);
  });

  it("is capped at 10 a minute per key", async () => {
    const acct = await createAccount();
    const keys = [acct.key, await anotherKey(acct)];
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      // One key, paced under its 5 requests a second, so only the per-minute cap can refuse.
      if (i % 5 === 4) await new Promise((resolve) => setTimeout(resolve, 1_050));
      statuses.push((await sendTest(keys[0]!, `${env.RECEIVER_URL}${unique("/ok/cap")}`)).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect((await sendTest(keys[1]!, `${env.RECEIVER_URL}${unique("/ok/cap")}`)).status).toBe(200);
  });
});

describe("sample bodies", () => {
  it.each(EVENTS)("%s: a fixed body starting with test: true that names its event", (event) => {
    const body = sampleBody(event, { productNamed, monitoredProduct });
    expect(body.startsWith('{"test":true,')).toBe(true);
    expect(JSON.parse(body)).toMatchObject({ test: true, event });
    expect(sampleBody(event, { productNamed, monitoredProduct })).toBe(body);
  });

  it("a bulk finished sample carries its product's counters", () => {
    expect(JSON.parse(sampleBody("bulk_email_job.finished", { productNamed, monitoredProduct })).job).toEqual({
      id: 1,
      status: "completed",
      total: 2,
      processed: 2,
      deliverable: 1,
      risky: 0,
      undeliverable: 1,
      credits_used: 1,
      stopped_reason: null,
      finished_at: "2026-01-01T00:00:00.000Z",
    });
  });

  it("email.settled carries a whole email result, field for field what a real callback carries", async () => {
    const acct = await createAccount({ pack: 1 });
    const real = await lookupEmail(acct.key, { email: "alice@acme.example" });
    const sample = JSON.parse(sampleBody("email.settled", { productNamed, monitoredProduct }));
    expect(Object.keys(sample.data).sort()).toEqual(Object.keys(real.body.data).sort());
    expect(Object.keys(sample)).toEqual(["test", "event", "request_id", "attempt", "settled", "data", "meta"]);
  });

  it("entity_monitor.run carries the summary a real run carries", async () => {
    const sample = JSON.parse(sampleBody("entity_monitor.run", { productNamed, monitoredProduct }));
    expect(Object.keys(sample.summary)).toEqual([
      "checked",
      "found",
      "changed",
      "new_baselines",
      "credits_used",
      "stopped_reason",
    ]);
    expect(Object.keys(sample.monitor)).toEqual(["id", "name", "cadence", "last_run_at", "next_run_at"]);
  });

  it("mints whsec_ secrets of 32 base62 characters, a new one each time", () => {
    const [a, b] = [mintSecret(), mintSecret()];
    expect(a).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(a).not.toBe(b);
  });
});

describe("signatures", () => {
  it("sends the old body-only header until 1 March 2027 and only the V2 header from then on", async () => {
    const signature = await sign("secret", "{}", OLD_SIGNATURE_UNTIL - 1000);
    expect(Object.keys(signatureHeaders(signature, OLD_SIGNATURE_UNTIL - 1))).toEqual([
      "X-Service-Signature-V2",
      "X-Service-Signature",
    ]);
    expect(Object.keys(signatureHeaders(signature, OLD_SIGNATURE_UNTIL))).toEqual(["X-Service-Signature-V2"]);
  });

  it("signs v2:{t}:{body} and the body alone with HMAC-SHA256", async () => {
    const signature = await sign("key", "{}", 1_800_000_000_000);
    expect(signature.timestamped).toMatch(/^t=1800000000,v2=[0-9a-f]{64}$/);
    const verifier = new WebhookVerifier("key");
    expect(await verifier.verify({ "x-service-signature-v2": signature.timestamped }, "{}", 1_800_000_000_000)).toBe(
      "ok",
    );
    expect(await verifier.legacyMatches({ "x-service-signature": signature.legacy }, "{}")).toBe(true);
  });
});

describe("private address guard", () => {
  it.each([
    ["0.1.2.3", true],
    ["10.9.9.9", true],
    ["100.64.0.1", true],
    ["127.0.0.1", true],
    ["169.254.1.1", true],
    ["172.16.5.5", true],
    ["192.168.1.1", true],
    ["198.18.0.1", true],
    ["224.0.0.1", true],
    ["255.255.255.255", true],
    ["::1", true],
    ["fe80::1", true],
    ["fc00::1", true],
    ["ff02::1", true],
    ["::ffff:10.0.0.1", true],
    ["::", true],
    ["2001:db8::1", true],
    ["8.8.8.8", false],
    ["1.1.1.1", false],
    ["2606:4700:4700::1111", false],
    ["::ffff:8.8.8.8", false],
  ])("%s private: %s", (ip, expected) => {
    expect(isPrivateAddress(ip)).toBe(expected);
  });

  it("lets loopback through only with the development switch", () => {
    expect(isPrivateAddress("127.0.0.1", true)).toBe(false);
    expect(isPrivateAddress("10.0.0.1", true)).toBe(true);
  });
});
