import { type ApiError, rateLimited } from "../http/errors";
import { gcra, isFull, type Bucket } from "./gcra";
import { sourceSubject } from "./source";

/**
 * Lookups that find no key, per source address and isolate: 10 a minute on average with bursts of 10 (GCRA). Kept in
 * the isolate's memory, not in a Durable Object: its whole point is that a flood of random keys costs no D1 primary
 * read nor any other call once an address is over (src/auth/key-lookup.ts).
 */
export const UNKNOWN_KEYS = { limit: 10, windowMs: 60_000 } as const;

/** Addresses tracked at once; past it, full buckets go first, then the oldest (which then start afresh). */
const MAX_SOURCES = 10_000;

const buckets = new Map<string, Bucket>();

function bucketOf(subject: string, now: number): Bucket {
  let bucket = buckets.get(subject);
  if (bucket) return bucket;
  if (buckets.size >= MAX_SOURCES) {
    for (const [key, b] of buckets) if (isFull(b, now)) buckets.delete(key);
    if (buckets.size >= MAX_SOURCES) buckets.delete(buckets.keys().next().value!);
  }
  bucket = { tat: 0 };
  buckets.set(subject, bucket);
  return bucket;
}

/**
 * The refusal for an address already over its budget (429 RATE_LIMITED with Retry-After), or null within it. Takes
 * nothing: a key that turns out to exist never counts (`countUnknownKey` counts the misses).
 */
export function unknownKeysRefusal(address: string | undefined, now = Date.now()): ApiError | null {
  const bucket = buckets.get(sourceSubject(address));
  if (!bucket) return null;
  const result = gcra({ tat: bucket.tat }, UNKNOWN_KEYS.limit, UNKNOWN_KEYS.windowMs, now);
  return result.allowed
    ? null
    : rateLimited(result.retryAfterSeconds, "Too many unknown keys from this address; retry later.");
}

/**
 * Counts one lookup that found no key. Counted even past the budget: lookups sent at once all pass the check before
 * any is known to miss, so each miss is paid back in full (the address waits one interval per miss) and the long-run
 * rate of reads for unknown keys stays within the budget however many arrive together.
 */
export function countUnknownKey(address: string | undefined, now = Date.now()): void {
  const bucket = bucketOf(sourceSubject(address), now);
  bucket.tat = Math.max(bucket.tat, now) + UNKNOWN_KEYS.windowMs / UNKNOWN_KEYS.limit;
}
