import type { ProviderBatch } from "../../../engines/lists/feedback-shape";
import { fieldsOf, instant, isRecord, parseJson, pick, text, type Json } from "../../../engines/lists/inbound-body";
import type { PhoneItem } from "../numbering";
import {
  batchOf,
  DELIVERED,
  failureOf,
  PERMANENT,
  REJECTED,
  TEMPORARY,
  utcTime,
  type Outcome,
  type Read,
} from "./outcomes";

/**
 * The SMS senders' delivery reports, each read from its documented format (docs/phone-feedback.md lists every status
 * and code mapped). Statuses that are not final (queued, sent, accepted, dispatched, ...) are ignored and counted.
 * None of these requests is signed with anything this service holds: the `fb_` key in the URL is the credential.
 */
type Batch = Promise<ProviderBatch<PhoneItem> | null>;

/** A status field's value in lower case, or null. */
const status = (value: unknown) => text(value)?.toLowerCase() ?? null;

/** A code sent as a number or as text, as text. */
const code = (value: unknown) => (typeof value === "number" ? String(value) : text(value));

/**
 * Twilio Programmable Messaging status callback: form-encoded, one message per request. `MessageStatus` (also sent as
 * `SmsStatus`) `delivered`; `undelivered` and `failed` by `ErrorCode`: 30005 unknown handset, 30006 landline or
 * unreachable carrier, 21211 invalid To and 21614 not a mobile number are permanent; 21610 unsubscribed recipient is
 * an opt-out; 30004 blocked, 30007 filtered and 30034 unregistered sender are rejections; the rest temporary.
 */
export async function twilio(_env: Env, request: { body: string }): Batch {
  const f = fieldsOf(request.body);
  const state = status(f?.MessageStatus ?? f?.SmsStatus);
  if (!f || !state || !("To" in f)) return null;
  const lists = {
    permanent: ["30005", "30006", "21211", "21614"],
    optedOut: ["21610"],
    rejected: ["30004", "30007", "30034"],
  };
  const outcome =
    state === "delivered"
      ? DELIVERED
      : state === "undelivered" || state === "failed"
        ? failureOf(code(f.ErrorCode), lists)
        : null;
  return batchOf([
    { to: text(f.To), outcome, at: null, detail: pick(f, ["MessageSid", "MessageStatus", "ErrorCode", "AccountSid"]) },
  ]);
}

/**
 * Vonage SMS API delivery receipt, as JSON (POST-JSON) or form-encoded (POST). `status` `delivered`; `failed`,
 * `rejected`, `expired` and `undeliverable` by `err-code`: 3 absent subscriber (permanent) and 4 barred by the user are
 * permanent; 9 (the user asked not to receive this service) an opt-out; 6 anti-spam and 10 illegal message rejections;
 * the rest temporary. `accepted`, `buffered` and `unknown` say nothing final.
 */
export async function vonage(_env: Env, request: { body: string }): Batch {
  const f = fieldsOf(request.body);
  const state = status(f?.status);
  if (!f || !state || !("msisdn" in f)) return null;
  const failed = ["failed", "rejected", "expired", "undeliverable"].includes(state);
  const lists = { permanent: ["3", "4"], optedOut: ["9"], rejected: ["6", "10"] };
  const outcome = state === "delivered" ? DELIVERED : failed ? failureOf(code(f["err-code"]), lists) : null;
  const detail = pick(f, ["messageId", "status", "err-code", "network-code", "client-ref"]);
  return batchOf([{ to: code(f.msisdn), outcome, at: utcTime(f["message-timestamp"]), detail }]);
}

/**
 * Plivo message status callback: form-encoded (JSON read too), one message per request. `Status` `delivered`;
 * `failed`, `undelivered` and `rejected` by `ErrorCode`: 50 invalid destination number is permanent; 10 invalid
 * message, 30 spam detected and 40 invalid source number are rejections; the rest temporary. WhatsApp messages
 * (`Type: whatsapp`) say nothing about SMS and are ignored.
 */
export async function plivo(_env: Env, request: { body: string }): Batch {
  const f = fieldsOf(request.body);
  const state = status(f?.Status);
  if (!f || !state || !("To" in f)) return null;
  const sms = status(f.Type) !== "whatsapp";
  const failed = ["failed", "undelivered", "rejected"].includes(state);
  const outcome = !sms
    ? null
    : state === "delivered"
      ? DELIVERED
      : failed
        ? failureOf(code(f.ErrorCode), { permanent: ["50"], rejected: ["10", "30", "40"] })
        : null;
  const detail = pick(f, ["MessageUUID", "Status", "ErrorCode", "Type", "MCC", "MNC"]);
  return batchOf([{ to: code(f.To), outcome, at: utcTime(f.DeliveryReportTime), detail }]);
}

/**
 * Sinch SMS delivery status to the report's final status: `Delivered`; `Deleted` (removed by the remote SMSC, as for
 * an invalid or opted-out number) a permanent failure; `Failed` and `Expired` temporary; `Rejected` and `Aborted`
 * rejections, except code 404 (temporary delivery failure). `Queued`, `Dispatched`, `Cancelled` and `Unknown` say
 * nothing final.
 */
function sinchOutcome(state: string | null, reportCode: string | null): Outcome | null {
  if (state === "delivered") return DELIVERED;
  if (state === "deleted") return PERMANENT;
  if (state === "failed" || state === "expired") return TEMPORARY;
  if (state === "rejected" || state === "aborted") return reportCode === "404" ? TEMPORARY : REJECTED;
  return null;
}

/**
 * Sinch SMS REST API delivery report callbacks (JSON): `recipient_delivery_report_sms` (per recipient: `recipient`,
 * `status`, `code`, `at`) and `delivery_report_sms` with `statuses[].recipients` (report type `full`). Every other
 * `type` (MMS reports, inbound messages, a `summary` report without recipients) is ignored and counted.
 */
export async function sinch(_env: Env, request: { body: string }): Batch {
  const body = parseJson(request.body);
  if (!isRecord(body) || typeof body.type !== "string") return null;
  const base = pick(body, ["type", "batch_id", "client_reference"]);
  if (body.type === "recipient_delivery_report_sms") {
    const detail = { ...base, ...pick(body, ["status", "code", "operator"]) };
    return batchOf([
      {
        to: text(body.recipient),
        outcome: sinchOutcome(status(body.status), code(body.code)),
        at: instant(body.at),
        detail,
      },
    ]);
  }
  if (body.type === "delivery_report_sms" && Array.isArray(body.statuses)) {
    const reads = body.statuses.filter(isRecord).flatMap((s: Json): Read[] => {
      const outcome = sinchOutcome(status(s.status), code(s.code));
      const recipients = Array.isArray(s.recipients) ? s.recipients.map(text) : [];
      return recipients.length
        ? recipients.map((to) => ({ to, outcome, at: null, detail: { ...base, ...pick(s, ["status", "code"]) } }))
        : [{ to: null, outcome: null, at: null, detail: {} }];
    });
    return batchOf(reads);
  }
  return { events: [], ignored: 1 };
}
