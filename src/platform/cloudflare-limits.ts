/**
 * Cloudflare's documented ceilings that the code's own limits must fit under, named once so nothing copies a number:
 * test/limits/hops.ts checks every customer limit against them (docs/architecture.md, "Limits across hops").
 */
export const CLOUDFLARE_LIMITS = Object.freeze({
  /** One Queues message body (developers.cloudflare.com/queues/platform/limits/): 128 KB. */
  queueMessageBytes: 128_000,
  /** One D1 string, BLOB or row (developers.cloudflare.com/d1/platform/limits/): 2 MB. */
  d1ValueBytes: 2_000_000,
  /** Bound parameters of one D1 statement (the same page; src/db/chunks.ts cuts lists below it). */
  d1BoundParameters: 100,
  /** Queries one Worker invocation may make to D1 on the paid plan (the same page); a batch's statements count. */
  d1QueriesPerInvocation: 1_000,
  /** A Durable Object RPC call's serialized arguments (developers.cloudflare.com/durable-objects/platform/limits/). */
  rpcBytes: 32 * 1024 * 1024,
});
