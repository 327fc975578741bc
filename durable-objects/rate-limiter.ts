import { DurableObject } from "cloudflare:workers";
import { gcra, type Bucket, type HitResult } from "../src/limits/gcra";

// The algorithm is pure and shared (src/limits/gcra.ts); re-exported so older imports of it keep working.
export { gcra, type Bucket, type HitResult } from "../src/limits/gcra";

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
