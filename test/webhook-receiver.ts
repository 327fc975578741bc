import { env } from "cloudflare:test";
import type { Received } from "./fixtures/constants";

/** What the fixture receivers recorded under a path prefix. */
export async function receivedAt(prefix: string): Promise<Received[]> {
  return (await (await fetch(`${env.RECEIVER_URL}/__log?prefix=${encodeURIComponent(prefix)}`)).json()) as Received[];
}

/** Deliveries go through the outbox's own queue message: waits until `count` have arrived under the prefix. */
export async function deliveredAt(prefix: string, count = 1, timeoutMs = 8_000): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs;
  let received = await receivedAt(prefix);
  while (received.length < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    received = await receivedAt(prefix);
  }
  return received;
}

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string) {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/**
 * Verifies a delivery exactly as the spec tells receivers to: parse `t=...,v2=...` (t digits), reject a timestamp more
 * than 300 s from the receiver's clock, compare digests in constant time, and refuse a signature already accepted.
 */
export class WebhookVerifier {
  private readonly seen = new Set<string>();

  constructor(private readonly secret: string) {}

  async verify(
    headers: Record<string, string>,
    rawBody: string,
    nowMs = Date.now(),
  ): Promise<"ok" | "malformed" | "stale" | "bad_signature" | "replay"> {
    const parts = Object.fromEntries(
      (headers["x-service-signature-v2"] ?? "").split(",").map((p) => p.split("=", 2) as [string, string]),
    );
    if (!parts.t || !/^\d+$/.test(parts.t) || !parts.v2) return "malformed";
    if (Math.abs(nowMs / 1000 - Number(parts.t)) > 300) return "stale";
    const expected = encoder.encode(await hmacHex(this.secret, `v2:${parts.t}:${rawBody}`));
    const given = encoder.encode(parts.v2);
    if (expected.byteLength !== given.byteLength || !crypto.subtle.timingSafeEqual(expected, given))
      return "bad_signature";
    if (this.seen.has(parts.v2)) return "replay";
    this.seen.add(parts.v2);
    return "ok";
  }

  /** The body-only legacy header, for deliveries before 1 March 2027. */
  async legacyMatches(headers: Record<string, string>, rawBody: string) {
    return headers["x-service-signature"] === (await hmacHex(this.secret, rawBody));
  }
}
