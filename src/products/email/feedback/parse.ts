import type { FeedbackEvent } from "../../../engines/lists/feedback-shape";

/** Small readers shared by the senders' parsers: their bodies are JSON whose shape is only known after looking. */
export type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** An ISO timestamp or Unix seconds (Mailgun and SendGrid send fractional seconds) as Unix ms, or null. */
export function instant(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return Math.round(value * 1000);
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
}

/** The named fields of a sender's event that are worth keeping for audit (absent ones left out). */
export function pick(event: Json, fields: readonly string[]): Json {
  return Object.fromEntries(fields.flatMap((f) => (event[f] === undefined || event[f] === null ? [] : [[f, event[f]]])));
}

export type Outcome = { outcome: "delivered" | "complained"; kind: null } | { outcome: "bounced"; kind: "hard" | "soft" };

export const DELIVERED: Outcome = { outcome: "delivered", kind: null };
export const COMPLAINED: Outcome = { outcome: "complained", kind: null };
export const HARD: Outcome = { outcome: "bounced", kind: "hard" };
export const SOFT: Outcome = { outcome: "bounced", kind: "soft" };

export const event = (value: string, outcome: Outcome, occurredAt: number | null, detail: Json): FeedbackEvent<string> => ({ value, ...outcome, occurredAt, detail });
