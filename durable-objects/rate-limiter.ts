import { DurableObject } from "cloudflare:workers";

export interface HitResult {
  allowed: boolean;
  /** Seconds until the oldest counted request leaves the window; 0 when allowed. */
  retryAfterSeconds: number;
}

/**
 * A sliding-window log for one limited subject (a key, a visitor IP, a user). One instance per subject, so its requests
 * are counted one at a time. The log is kept in memory: it only matters for a window of at most a minute, and an
 * instance is only evicted after being idle for longer than that.
 */
export class RateLimiter extends DurableObject<Env> {
  private hits: number[] = [];

  hit(limit: number, windowMs: number): HitResult {
    const now = Date.now();
    const first = this.hits.findIndex((t) => t > now - windowMs);
    this.hits = first === -1 ? [] : this.hits.slice(first);
    if (this.hits.length >= limit) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((this.hits[0]! + windowMs - now) / 1000)) };
    }
    this.hits.push(now);
    return { allowed: true, retryAfterSeconds: 0 };
  }
}
