import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { accounts } from "../db/schema";
import { ApiError } from "../http/errors";
import { KEY_PATTERNS, sha256Hex } from "./keys";

/** Resolves the `fb_` key of an inbound bounce-webhook URL to its account; unknown or rotated -> 401 INVALID_FEEDBACK_KEY. */
export async function accountForFeedbackKey(db: Database, feedbackKey: string): Promise<string> {
  const invalid = new ApiError("INVALID_FEEDBACK_KEY", "The feedback key in this URL is unknown or was rotated.");
  if (!KEY_PATTERNS.feedback.test(feedbackKey)) throw invalid;
  const row = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.feedbackKeyHash, await sha256Hex(feedbackKey)))
    .get();
  if (!row) throw invalid;
  return row.id;
}
