import type { FeedbackEvent, ProviderBatch } from "../../../engines/lists/feedback-shape";
import {
  COMPLAINED,
  DELIVERED,
  event,
  HARD,
  instant,
  isRecord,
  parseJson,
  pick,
  SOFT,
  text,
  type Json,
  type Outcome,
} from "./parse";

/**
 * SendGrid, Mailgun and Postmark webhooks, each read from its documented payload. Event types that say nothing about
 * delivery (processed, deferred, opens, clicks, unsubscribes, ...) are ignored and counted; so is an event without a
 * recipient.
 */

/** Events and the ignored count, from a list of a sender's events each read by `classify`. */
function collect(
  items: unknown[],
  classify: (item: Json) => { email: string | null; outcome: Outcome | null; at: number | null; detail: Json }[],
): ProviderBatch<string> {
  const events: FeedbackEvent<string>[] = [];
  let ignored = 0;
  for (const item of items) {
    const read = isRecord(item) ? classify(item) : [];
    if (!read.length) ignored += 1;
    for (const r of read) {
      if (r.email && r.outcome) events.push(event(r.email, r.outcome, r.at, r.detail));
      else ignored += 1;
    }
  }
  return { events, ignored };
}

/**
 * SendGrid Event Webhook: a JSON array of events. `delivered`; `bounce` with `type: "bounce"` (hard) or `"blocked"`
 * (soft: the receiver refused for now); `spamreport` (complaint). `deferred` is a retry in progress, not an outcome.
 */
export async function sendgrid(_env: Env, request: { body: string }): Promise<ProviderBatch<string> | null> {
  const body = parseJson(request.body);
  if (!Array.isArray(body)) return null;
  return collect(body, (e) => {
    const outcome =
      e.event === "delivered"
        ? DELIVERED
        : e.event === "spamreport"
          ? COMPLAINED
          : e.event === "bounce"
            ? e.type === "blocked"
              ? SOFT
              : HARD
            : null;
    const detail = pick(e, [
      "event",
      "type",
      "status",
      "reason",
      "bounce_classification",
      "sg_event_id",
      "sg_message_id",
    ]);
    return [{ email: text(e.email), outcome, at: instant(e.timestamp), detail }];
  });
}

/**
 * Mailgun webhooks: one JSON event per request, inside `event-data` (with the `signature` block beside it), or the
 * event itself. `delivered`; `failed` with `severity: "permanent"` (hard) or `"temporary"` (soft); `complained`.
 */
export async function mailgun(_env: Env, request: { body: string }): Promise<ProviderBatch<string> | null> {
  const body = parseJson(request.body);
  if (!isRecord(body)) return null;
  const data = isRecord(body["event-data"]) ? body["event-data"] : body;
  if (typeof data.event !== "string") return null;
  return collect([data], (e) => {
    const failed = e.severity === "permanent" ? HARD : SOFT;
    const outcome =
      e.event === "delivered"
        ? DELIVERED
        : e.event === "complained"
          ? COMPLAINED
          : e.event === "failed"
            ? failed
            : null;
    const status = isRecord(e["delivery-status"]) ? pick(e["delivery-status"], ["code", "message", "description"]) : {};
    return [
      {
        email: text(e.recipient),
        outcome,
        at: instant(e.timestamp),
        detail: { ...pick(e, ["event", "severity", "reason", "id"]), ...status },
      },
    ];
  });
}

const POSTMARK_HARD = new Set(["HardBounce", "BadEmailAddress"]);
const POSTMARK_SOFT = new Set(["SoftBounce", "Transient", "DnsError", "Blocked"]);

function postmarkBounce(type: unknown): Outcome | null {
  if (type === "SpamComplaint") return COMPLAINED;
  if (typeof type !== "string") return null;
  return POSTMARK_HARD.has(type) ? HARD : POSTMARK_SOFT.has(type) ? SOFT : null;
}

/**
 * Postmark webhooks: one JSON record per request, named by `RecordType`. `Delivery` (`Recipient`); `Bounce` by its
 * `Type` (HardBounce and BadEmailAddress hard; SoftBounce, Transient, DnsError and Blocked soft; SpamComplaint a
 * complaint; the rest, such as AutoResponder, ignored); `SpamComplaint`.
 */
export async function postmark(_env: Env, request: { body: string }): Promise<ProviderBatch<string> | null> {
  const body = parseJson(request.body);
  if (!isRecord(body) || typeof body.RecordType !== "string") return null;
  return collect([body], (r) => {
    const detail = pick(r, ["RecordType", "Type", "TypeCode", "Description", "Details", "MessageID", "ID"]);
    if (r.RecordType === "Delivery")
      return [{ email: text(r.Recipient), outcome: DELIVERED, at: instant(r.DeliveredAt), detail }];
    const outcome =
      r.RecordType === "Bounce" ? postmarkBounce(r.Type) : r.RecordType === "SpamComplaint" ? COMPLAINED : null;
    return [{ email: text(r.Email), outcome, at: instant(r.BouncedAt), detail }];
  });
}
