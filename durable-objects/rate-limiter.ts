import { DurableObject } from "cloudflare:workers";
import { type Bucket, gcra, type HitResult } from "../src/limits/gcra";

export { type Bucket, gcra, type HitResult };

/**
 * A limited subject with no account behind it (the sandbox key's source address): requests are counted one at a time.
 * Everything with an account is limited in the account's own object instead (durable-objects/account/windows.ts), in
 * the same call that reads or holds its credits. The bucket is kept in memory: an instance is only evicted after
 * being idle for longer than a window, and by then the bucket is full again anyway.
 */
export class RateLimiter extends DurableObject<Env> {
  private readonly bucket: Bucket = { tat: 0 };

  hit(limit: number, windowMs: number): HitResult {
    return gcra(this.bucket, limit, windowMs, Date.now());
  }
}
