import { describe, expect, it } from "vitest";
import { signRequest, verifyRequest } from "../auth.mjs";
import { signLikeWorker } from "./helpers.mjs";

const secret = "unit-test-secret-0123456789";
const rawBody = Buffer.from('{"domain":"example.test","note":"é"}');
const now = 1_800_000_000;

describe("request signing", () => {
  it("matches the Worker's Web Crypto signature over `${timestamp}.${rawBody}`", async () => {
    const fromWorker = await signLikeWorker(secret, String(now), rawBody.toString("utf8"));
    expect(signRequest(secret, now, rawBody)).toBe(fromWorker);
    expect(fromWorker).toMatch(/^[0-9a-f]{64}$/);
  });

  it("produces the same fixed vector as the Worker test (test/platform/smtp-sidecar-client.test.ts)", () => {
    expect(signRequest("key", 1800000000, "{}")).toBe(
      "7321475872b03ff21bdc2dfd86ea2d99ec29c479fbe4a77aa6acf4509505493f",
    );
  });

  it("accepts a fresh, correctly signed request", () => {
    const signature = signRequest(secret, now, rawBody);
    expect(verifyRequest({ secret, timestamp: String(now), signature, rawBody, nowSeconds: now + 299 })).toBeNull();
    expect(verifyRequest({ secret, timestamp: String(now), signature, rawBody, nowSeconds: now - 299 })).toBeNull();
  });

  it("rejects a timestamp more than 300 seconds away in either direction", () => {
    const signature = signRequest(secret, now, rawBody);
    expect(verifyRequest({ secret, timestamp: String(now), signature, rawBody, nowSeconds: now + 301 })).toMatch(
      /window/,
    );
    expect(verifyRequest({ secret, timestamp: String(now), signature, rawBody, nowSeconds: now - 301 })).toMatch(
      /window/,
    );
  });

  it("rejects a signature over another body, another secret or another timestamp", () => {
    const check = (signature) => verifyRequest({ secret, timestamp: String(now), signature, rawBody, nowSeconds: now });
    expect(check(signRequest(secret, now, Buffer.from("{}")))).toBe("bad signature");
    expect(check(signRequest("another-secret-0123456789", now, rawBody))).toBe("bad signature");
    expect(check(signRequest(secret, now + 1, rawBody))).toBe("bad signature");
  });

  it("rejects missing or malformed headers", () => {
    const signature = signRequest(secret, now, rawBody);
    expect(verifyRequest({ secret, timestamp: undefined, signature, rawBody, nowSeconds: now })).toMatch(/Timestamp/);
    expect(verifyRequest({ secret, timestamp: `${now}.5`, signature, rawBody, nowSeconds: now })).toMatch(/Timestamp/);
    expect(
      verifyRequest({ secret, timestamp: String(now), signature: signature.toUpperCase(), rawBody, nowSeconds: now }),
    ).toMatch(/Signature/);
    expect(
      verifyRequest({ secret, timestamp: String(now), signature: signature.slice(2), rawBody, nowSeconds: now }),
    ).toMatch(/Signature/);
  });
});
