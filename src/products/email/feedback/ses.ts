import type { FeedbackEvent, ProviderBatch } from "../../../engines/lists/feedback-shape";
import { confirmSnsSubscription, isSnsUrl, verifySnsMessage } from "../../../platform/sns";
import { COMPLAINED, DELIVERED, event, HARD, instant, isRecord, parseJson, pick, SOFT, text, type Json, type Outcome } from "./parse";

/**
 * Amazon SES notifications through SNS. The SNS envelope (`Type`, also sent as `x-amz-sns-message-type`) is a
 * `SubscriptionConfirmation` (answered by fetching its SubscribeURL), an `UnsubscribeConfirmation` (nothing to do) or a
 * `Notification` whose `Message` is the SES notification as a JSON string; with raw message delivery on, the body is
 * the SES notification itself. SES names its kind `notificationType` (identity notifications) or `eventType` (event
 * publishing): `Bounce` (`Permanent` hard; `Transient` and `Undetermined` soft), `Complaint` and `Delivery` give one
 * event per recipient; every other kind (Send, Reject, Open, Click, DeliveryDelay, ...) is ignored.
 */
const recipientsOf = (list: unknown, field?: string): string[] =>
  (Array.isArray(list) ? list : []).flatMap((r) => text(field ? (isRecord(r) ? r[field] : null) : r) ?? []);

function sesEvents(message: Json): ProviderBatch<string> {
  const kind = message.notificationType ?? message.eventType;
  const mail = isRecord(message.mail) ? pick(message.mail, ["messageId", "source"]) : {};
  const make = (emails: string[], outcome: Outcome, at: unknown, detail: Json): ProviderBatch<string> => {
    const events: FeedbackEvent<string>[] = emails.map((email) => event(email, outcome, instant(at), { type: kind, ...mail, ...detail }));
    return { events, ignored: events.length ? 0 : 1 };
  };
  if (kind === "Bounce" && isRecord(message.bounce)) {
    const b = message.bounce;
    const outcome = b.bounceType === "Permanent" ? HARD : SOFT;
    const recipients = Array.isArray(b.bouncedRecipients) ? b.bouncedRecipients.filter(isRecord) : [];
    const events = recipients.flatMap((r) => {
      const email = text(r.emailAddress);
      return email ? [event(email, outcome, instant(b.timestamp), { type: kind, ...mail, ...pick(b, ["bounceType", "bounceSubType", "feedbackId"]), ...pick(r, ["status", "action", "diagnosticCode"]) })] : [];
    });
    return { events, ignored: events.length ? 0 : 1 };
  }
  if (kind === "Complaint" && isRecord(message.complaint)) {
    const c = message.complaint;
    return make(recipientsOf(c.complainedRecipients, "emailAddress"), COMPLAINED, c.timestamp, pick(c, ["complaintFeedbackType", "feedbackId"]));
  }
  if (kind === "Delivery" && isRecord(message.delivery)) {
    const d = message.delivery;
    return make(recipientsOf(d.recipients), DELIVERED, d.timestamp, pick(d, ["smtpResponse"]));
  }
  return { events: [], ignored: 1 };
}

/**
 * An SNS envelope is acted on only when its signature verifies with SNS's certificate; a body already unwrapped (raw
 * message delivery) carries no signature, and the `fb_` key in the URL is then its only credential.
 */
export async function ses(env: Env, request: { headers: Headers; body: string }): Promise<ProviderBatch<string> | null> {
  const body = parseJson(request.body);
  if (!isRecord(body)) return null;
  if (body.notificationType !== undefined || body.eventType !== undefined) return sesEvents(body);
  const type = body.Type;
  if (type !== "Notification" && type !== "SubscriptionConfirmation" && type !== "UnsubscribeConfirmation") return null;
  const allowLoopback = env.WEBHOOKS_ALLOW_LOOPBACK === "true";
  if (!(await verifySnsMessage(body, allowLoopback))) return { events: [], ignored: 0, invalid: "The SNS message signature does not verify with an Amazon SNS certificate." };
  if (type === "SubscriptionConfirmation") {
    const url = text(body.SubscribeURL);
    if (!url || !isSnsUrl(url, allowLoopback)) return { events: [], ignored: 0, invalid: "SubscribeURL is not an Amazon SNS https URL." };
    return { events: [], ignored: 0, confirmed: await confirmSnsSubscription(url) };
  }
  if (type === "UnsubscribeConfirmation") return { events: [], ignored: 0 };
  const message = typeof body.Message === "string" ? parseJson(body.Message) : undefined;
  return isRecord(message) ? sesEvents(message) : { events: [], ignored: 1 };
}
