import type { FeedbackEvent, ProviderBatch } from "../../../engines/lists/feedback-shape";
import type { Json } from "../../../engines/lists/inbound-body";
import type { PhoneItem } from "../numbering";

/**
 * Normalized SMS delivery outcomes (docs/phone-feedback.md): `delivered`; `failed` with kind `permanent` (the number
 * cannot receive messages: unknown, inactive, a landline, barred) or `temporary` (handset off, out of coverage,
 * network error, expired, cause not known); `rejected` (refused for the message, the sender or the sender's account,
 * so it says nothing about the number); `opted_out` (the recipient asked the sender to stop).
 */
export const PHONE_OUTCOMES = ["delivered", "failed", "rejected", "opted_out"] as const;
export const FAILURE_KINDS = ["permanent", "temporary"] as const;

export type Outcome =
  | { outcome: "delivered" | "rejected" | "opted_out"; kind: null }
  | { outcome: "failed"; kind: (typeof FAILURE_KINDS)[number] };

export const DELIVERED: Outcome = { outcome: "delivered", kind: null };
export const PERMANENT: Outcome = { outcome: "failed", kind: "permanent" };
export const TEMPORARY: Outcome = { outcome: "failed", kind: "temporary" };
export const REJECTED: Outcome = { outcome: "rejected", kind: null };
export const OPTED_OUT: Outcome = { outcome: "opted_out", kind: null };

/** A sender's failure code (as text) read against its documented lists; a code in none of them is temporary. */
export function failureOf(
  code: string | null,
  lists: { permanent: readonly string[]; rejected?: readonly string[]; optedOut?: readonly string[] },
): Outcome {
  if (code === null) return TEMPORARY;
  if (lists.permanent.includes(code)) return PERMANENT;
  if (lists.optedOut?.includes(code)) return OPTED_OUT;
  return lists.rejected?.includes(code) ? REJECTED : TEMPORARY;
}

/** Senders write recipients as E.164 with or without the `+` (Vonage's `msisdn`, Plivo's `To`): digits get one. */
export const asE164 = (number: string): string => (/^\d{6,15}$/.test(number) ? `+${number}` : number);

/** One sender event as read: the recipient, the outcome (null: a status that says nothing final), when, and detail. */
export interface Read {
  to: string | null;
  outcome: Outcome | null;
  at: number | null;
  detail: Json;
}

/** The batch of a sender's reads: an event for each with a recipient and an outcome, the rest ignored and counted. */
export function batchOf(reads: Read[]): ProviderBatch<PhoneItem> {
  const events: FeedbackEvent<PhoneItem>[] = [];
  let ignored = 0;
  for (const r of reads) {
    if (r.to && r.outcome) events.push({ value: asE164(r.to), ...r.outcome, occurredAt: r.at, detail: r.detail });
    else ignored += 1;
  }
  return { events, ignored };
}

/** A UTC timestamp written `YYYY-MM-DD HH:MM:SS[.ffffff]` (Vonage, Plivo), as Unix ms, or null. */
export function utcTime(value: unknown): number | null {
  const match =
    typeof value === "string" ? /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d{1,3})?\d*$/.exec(value.trim()) : null;
  return match ? Date.parse(`${match[1]}T${match[2]}${match[3] ?? ""}Z`) : null;
}
