import type { FeedbackShape } from "../../../engines/lists/feedback-shape";
import { feedbackSuppression } from "../answer";
import { extractAddress } from "../extract";
import type { EmailResult } from "../result";
import { parseAddress } from "../syntax";
import { normalizeAddress } from "../username";
import { mailgun, postmark, sendgrid } from "./senders";
import { ses } from "./ses";

/**
 * Email delivery feedback (docs/email-feedback.md): outcomes `delivered`, `bounced` (`bounce_type` hard or soft, hard
 * by default) and `complained`, grouped by the address's domain; a hard bounce or a complaint suppresses the address.
 * Inbound from SendGrid, Mailgun, Postmark and Amazon SES (through SNS).
 */
export const emailFeedback: FeedbackShape<string, EmailResult> = {
  valueField: "email",
  outcomes: ["delivered", "bounced", "complained"],
  kinds: { field: "bounce_type", of: { bounced: ["hard", "soft"] } },
  facet: "domain",
  read(input) {
    const parsed = parseAddress(extractAddress(input));
    return parsed ? { key: normalizeAddress(parsed.local, parsed.domain).normalizedEmail, facet: parsed.domain } : null;
  },
  suppresses(event, key) {
    const reason =
      event.outcome === "complained"
        ? "complained"
        : event.outcome === "bounced" && event.kind === "hard"
          ? "bounced"
          : null;
    if (!reason) return null;
    const parsed = parseAddress(extractAddress(event.value))!;
    return {
      reason,
      result: feedbackSuppression(`${parsed.local}@${parsed.domain}`, key, reason, event.occurredAt ?? Date.now()),
    };
  },
  providers: { sendgrid, mailgun, postmark, ses },
};
