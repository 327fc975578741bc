/** The outcome of counting one request against a bucket. */
export interface HitResult {
  allowed: boolean;
  /** Seconds until a request would be admitted again; 0 when allowed. */
  retryAfterSeconds: number;
}

/**
 * A limited subject's whole state: the theoretical arrival time of its next request (GCRA). One number, so many
 * subjects fit in one object's memory (the account's object keeps one per key), or in one isolate's.
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
  if (tat - now > burst)
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((tat - now - burst) / 1000)) };
  bucket.tat = tat + interval;
  return { allowed: true, retryAfterSeconds: 0 };
}

/** A bucket that has refilled completely: forgetting it changes nothing. */
export const isFull = (bucket: Bucket, now: number) => bucket.tat <= now;
