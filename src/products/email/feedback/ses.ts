import type { FeedbackEvent, ProviderBatch } from "../../../engines/lists/feedback-shape";
import { confirmSnsSubscription, isSnsUrl, verifySnsMessage } from "../../../platform/sns";
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
    const events: FeedbackEvent<string>[] = emails.map((email) =>
      event(email, outcome, instant(at), { type: kind, ...mail, ...detail }),
    );
    return { events, ignored: events.length ? 0 : 1 };
  };
  if (kind === "Bounce" && isRecord(message.bounce)) {
    const b = message.bounce;
    const outcome = b.bounceType === "Permanent" ? HARD : SOFT;
    const recipients = Array.isArray(b.bouncedRecipients) ? b.bouncedRecipients.filter(isRecord) : [];
    const events = recipients.flatMap((r) => {
      const email = text(r.emailAddress);
      return email
        ? [
            event(email, outcome, instant(b.timestamp), {
              type: kind,
              ...mail,
              ...pick(b, ["bounceType", "bounceSubType", "feedbackId"]),
              ...pick(r, ["status", "action", "diagnosticCode"]),
            }),
          ]
        : [];
    });
    return { events, ignored: events.length ? 0 : 1 };
  }
  if (kind === "Complaint" && isRecord(message.complaint)) {
    const c = message.complaint;
    return make(
      recipientsOf(c.complainedRecipients, "emailAddress"),
      COMPLAINED,
      c.timestamp,
      pick(c, ["complaintFeedbackType", "feedbackId"]),
    );
  }
  if (kind === "Delivery" && isRecord(message.delivery)) {
    const d = message.delivery;
    return make(recipientsOf(d.recipients), DELIVERED, d.timestamp, pick(d, ["smtpResponse"]));
  }
  return { events: [], ignored: 1 };
}

/**
 * Fields only an SNS envelope has (SNS's message format, case as SNS writes them; an SES notification's own fields are
 * `notificationType`/`eventType`, `mail`, `bounce`, ... in camel case). A body carrying any of them is an envelope,
 * whatever else it carries, and must verify.
 */
const SNS_FIELDS = [
  "Type",
  "MessageId",
  "TopicArn",
  "Message",
  "Timestamp",
  "Signature",
  "SignatureVersion",
  "SigningCertURL",
  "SubscribeURL",
  "UnsubscribeURL",
  "Token",
  "Subject",
];
const looksLikeEnvelope = (body: Json) => SNS_FIELDS.some((field) => Object.hasOwn(body, field));

const refused = (invalid: string): ProviderBatch<string> => ({ events: [], ignored: 0, invalid });

/**
 * An SNS envelope is acted on only when its signature verifies with SNS's certificate, and so is anything that looks
 * like one: a body with any envelope field (even beside `notificationType`) or an `x-amz-sns-message-type` header
 * naming a confirmation never takes the unsigned path. A body already unwrapped (raw message delivery) carries no
 * signature and no envelope field, and the `fb_` key in the URL is then its only credential. A verified notification
 * whose `Message` is itself an envelope is refused: SES never publishes one, so it can only be a replayed wrapper.
 */
export async function ses(
  env: Env,
  request: { headers: Headers; body: string },
): Promise<ProviderBatch<string> | null> {
  const body = parseJson(request.body);
  if (!isRecord(body)) return null;
  const headerType = request.headers.get("x-amz-sns-message-type");
  const confirmationHeader = headerType === "SubscriptionConfirmation" || headerType === "UnsubscribeConfirmation";
  if (!looksLikeEnvelope(body) && !confirmationHeader) {
    return body.notificationType !== undefined || body.eventType !== undefined ? sesEvents(body) : null;
  }
  const type = body.Type;
  if (type !== "Notification" && type !== "SubscriptionConfirmation" && type !== "UnsubscribeConfirmation") {
    return refused(
      "An SNS message must be a Notification, SubscriptionConfirmation or UnsubscribeConfirmation signed by Amazon " +
        "SNS.",
    );
  }
  if (headerType !== null && headerType !== type)
    return refused("The x-amz-sns-message-type header does not match the message's Type.");
  const allowLoopback = env.WEBHOOKS_ALLOW_LOOPBACK === "true";
  if (!(await verifySnsMessage(body, allowLoopback)))
    return refused("The SNS message signature does not verify with an Amazon SNS certificate.");
  if (type === "SubscriptionConfirmation") {
    const url = text(body.SubscribeURL);
    if (!url || !isSnsUrl(url, allowLoopback)) return refused("SubscribeURL is not an Amazon SNS https URL.");
    return { events: [], ignored: 0, confirmed: await confirmSnsSubscription(url) };
  }
  if (type === "UnsubscribeConfirmation") return { events: [], ignored: 0 };
  const message = typeof body.Message === "string" ? parseJson(body.Message) : undefined;
  if (!isRecord(message)) return { events: [], ignored: 1 };
  if (looksLikeEnvelope(message))
    return refused("The SNS Message is itself an SNS envelope; SES publishes its notification there.");
  return sesEvents(message);
}
