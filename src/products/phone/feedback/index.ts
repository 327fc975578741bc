import type { FeedbackShape } from "../../../engines/lists/feedback-shape";
import { feedbackSuppression } from "../answer";
import { readItem, type PhoneItem } from "../numbering";
import type { PhoneResult } from "../result";
import { FAILURE_KINDS, PHONE_OUTCOMES } from "./outcomes";
import { plivo, sinch, twilio, vonage } from "./senders";

/**
 * Phone delivery feedback (docs/phone-feedback.md): SMS outcomes grouped by the number's country; a permanent failure
 * puts the number on the suppression list, answered `undelivered` from then on by batches, bulk runs and monitors.
 * Only valid numbers are recorded (a number the plan rejects is never sent to). Inbound from Twilio, Vonage, Plivo,
 * Sinch.
 */
export const phoneFeedback: FeedbackShape<PhoneItem, PhoneResult> = {
  valueField: "phone",
  outcomes: PHONE_OUTCOMES,
  kinds: { field: "failure", of: { failed: FAILURE_KINDS } },
  facet: "country",
  read(input) {
    const reading = readItem(input);
    return reading.valid ? { key: reading.e164!, facet: reading.country! } : null;
  },
  suppresses(event) {
    if (event.outcome !== "failed" || event.kind !== "permanent") return null;
    return {
      reason: "undelivered",
      result: feedbackSuppression(readItem(event.value), event.occurredAt ?? Date.now()),
    };
  },
  providers: { twilio, vonage, plivo, sinch },
};
