import type { FeedbackEvent } from "../../../engines/lists/feedback-shape";

import type { Json } from "../../../engines/lists/inbound-body";

/**
 * The body readers live with the feedback engine (every product's senders use them); email's parsers import them here.
 */
export { instant, isRecord, parseJson, pick, text, type Json } from "../../../engines/lists/inbound-body";

export type Outcome =
  | { outcome: "delivered" | "complained"; kind: null }
  | { outcome: "bounced"; kind: "hard" | "soft" };

export const DELIVERED: Outcome = { outcome: "delivered", kind: null };
export const COMPLAINED: Outcome = { outcome: "complained", kind: null };
export const HARD: Outcome = { outcome: "bounced", kind: "hard" };
export const SOFT: Outcome = { outcome: "bounced", kind: "soft" };

export const event = (
  value: string,
  outcome: Outcome,
  occurredAt: number | null,
  detail: Json,
): FeedbackEvent<string> => ({ value, ...outcome, occurredAt, detail });
