import { accountIdByFeedbackKeyHash } from "../db/accounts";
import { database, envOf, replicaReads, type Database } from "../db/client";
import { ApiError } from "../http/errors";
import { KeyLookup } from "./key-lookup";
import { sha256Hex } from "../platform/tokens";
import { KEY_PATTERNS } from "./keys";

/**
 * Feedback keys are read from D1 on every call, so a rotation applies at once everywhere; what the isolate remembers
 * only spares D1 the unknown ones and keeps a sender whose key it has seen valid clear of the unknown-key budget.
 */
const feedbackKeys = new KeyLookup<string>({
  query: accountIdByFeedbackKeyHash,
  nearby: (db, keyHash) => accountIdByFeedbackKeyHash(database(replicaReads(envOf(db))), keyHash),
  answerFromCache: false,
});

/**
 * Resolves the `fb_` key of an inbound bounce-webhook URL to its account; unknown or rotated -> 401
 * INVALID_FEEDBACK_KEY, and 429 RATE_LIMITED (no D1 primary read) for a key neither this isolate nor the nearby replica
 * knows, from an address over its unknown-key budget.
 */
export async function accountForFeedbackKey(
  db: Database,
  feedbackKey: string,
  sourceAddress: string | undefined,
): Promise<string> {
  const invalid = new ApiError("INVALID_FEEDBACK_KEY", "The feedback key in this URL is unknown or was rotated.");
  if (!KEY_PATTERNS.feedback.test(feedbackKey)) throw invalid;
  const accountId = await feedbackKeys.find(db, await sha256Hex(feedbackKey), sourceAddress);
  if (accountId === null) throw invalid;
  return accountId;
}
