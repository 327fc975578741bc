import { DurableObject } from "cloudflare:workers";
import { type Bucket, gcra, type HitResult } from "../src/limits/gcra";

/**
 * A limited subject with no account behind it (the sandbox key's source address, a source guessing the operator
 * token): requests are counted one at a time.
 * Everything with an account is limited in the account's own object instead (durable-objects/account/windows.ts), in
 * the same call that reads or holds its credits. The bucket is kept in memory: an instance is only evicted after
 * being idle for longer than a window, and by then the bucket is full again anyway.
 */
export class RateLimiter extends DurableObject<Env> {
  private readonly bucket: Bucket = { tat: 0 };

  hit(limit: number, windowMs: number): HitResult {
    return gcra(this.bucket, limit, windowMs, Date.now());
  }

  /**
   * Judges a guess of a secret (both as digests of equal length) for this subject: refused unjudged while the subject
   * is over its limit, counted only when wrong. Judged here rather than by the Worker, so guesses sent at once are
   * judged one at a time and a burst cannot be judged before its first misses are counted.
   */
  guess(given: string, expected: string, limit: number, windowMs: number): GuessResult {
    const now = Date.now();
    const peek = gcra({ tat: this.bucket.tat }, limit, windowMs, now);
    if (!peek.allowed) return { outcome: "refused", retryAfterSeconds: peek.retryAfterSeconds };
    const encoder = new TextEncoder();
    const [a, b] = [encoder.encode(given), encoder.encode(expected)];
    if (a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b)) return { outcome: "right" };
    gcra(this.bucket, limit, windowMs, now);
    return { outcome: "wrong" };
  }
}

export type GuessResult = { outcome: "right" | "wrong" } | { outcome: "refused"; retryAfterSeconds: number };
