import { gcra } from "../../src/limits/gcra";
import type { LimitHit } from "./types";

/** Past this many subjects, full buckets (worth nothing) are dropped. */
const PRUNE_AT = 10_000;

/**
 * The account's rate windows (its keys' 5 a second, its browser visitors, ...), one GCRA timestamp per subject, kept in
 * memory: counting a request then costs the call that carries it nothing in storage. An instance is only evicted after
 * being idle for longer than any window, and a bucket left idle that long is full again, so nothing is lost with it.
 */
export class RateWindows {
  private readonly tats = new Map<string, number>();

  /** Counts each hit in order; the first one over its limit refuses the call (hits before it stay counted). */
  hit(hits: LimitHit[], now: number): { limit: string; retryAfterSeconds: number } | null {
    for (const hit of hits) {
      const subject = `${hit.name}:${hit.subject}`;
      const bucket = { tat: this.tats.get(subject) ?? 0 };
      const result = gcra(bucket, hit.limit, hit.windowMs, now);
      if (!result.allowed) return { limit: hit.name, retryAfterSeconds: result.retryAfterSeconds };
      this.tats.set(subject, bucket.tat);
    }
    if (this.tats.size > PRUNE_AT) {
      for (const [subject, tat] of this.tats) if (tat <= now) this.tats.delete(subject);
    }
    return null;
  }
}
