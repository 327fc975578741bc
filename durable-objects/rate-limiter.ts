import { DurableObject } from "cloudflare:workers";

export interface HitResult {
  allowed: boolean;
  /** Seconds until a request would be admitted again; 0 when allowed. */
  retryAfterSeconds: number;
}

/**
 * The limiter's whole state for one subject: the theoretical arrival time of the next request (GCRA). One number, so
 * it is cheap to keep beside other per-account state if the limiter and the credits ever become one object.
 */
export interface Bucket {
  tat: number;
}

/**
 * GCRA, the generic cell rate algorithm (a token bucket written as one timestamp): `limit` requests per `windowMs` on
 * average, with bursts of up to `limit`. Each admitted request moves the theoretical arrival time on by one interval
 * (`windowMs / limit`); a request is refused when that time is more than a burst ahead of now. A client pacing itself
 * at the limit with arrival jitter is never refused, unlike a sliding log, which counts a late and an early request in
 * one window.
 */
export function gcra(bucket: Bucket, limit: number, windowMs: number, now: number): HitResult {
  const interval = windowMs / limit;
  const tat = Math.max(bucket.tat, now);
  const burst = windowMs - interval;
  if (tat - now > burst) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((tat - now - burst) / 1000)) };
  bucket.tat = tat + interval;
  return { allowed: true, retryAfterSeconds: 0 };
}

/**
 * One limited subject (a key, a visitor IP, a user): requests are counted one at a time. The bucket is kept in memory:
 * an instance is only evicted after being idle for longer than a window, and by then the bucket is full again anyway.
 */
export class RateLimiter extends DurableObject<Env> {
  private readonly bucket: Bucket = { tat: 0 };

  hit(limit: number, windowMs: number): HitResult {
    return gcra(this.bucket, limit, windowMs, Date.now());
  }
}
