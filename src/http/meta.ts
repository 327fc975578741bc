import { z } from "zod";

/**
 * The `meta` of each kind of success envelope, as the OpenAPI document describes it (`request_id` is added to every
 * one by the document builder, as `ok` adds it to every response).
 */
export const pageMeta = z.object({ page: z.int(), per_page: z.int(), total: z.int() });

/** A list kept for a limited time says how long. */
export const retainedPageMeta = pageMeta.extend({ retention_days: z.int() });

/** One lookup: what it cost and whether it was answered from the 7-day repeat window. */
export const lookupMeta = z.object({ credits_used: z.int(), credits_remaining: z.int(), cache_hit: z.boolean() });

/** A walk over a list: how far it got and why it stopped. */
export const batchMeta = z.object({
  requested: z.int(),
  processed: z.int(),
  credits_used: z.int(),
  credits_remaining: z.int(),
  stopped_reason: z.enum(["insufficient_credits", "key_spend_cap"]).nullable(),
});
