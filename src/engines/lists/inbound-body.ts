/**
 * Small readers for senders' inbound webhook bodies, shared by every product's parsers: bodies are JSON or
 * form-encoded, and their shape is only known after looking.
 */
export type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The fields of a body that is either one JSON object or `application/x-www-form-urlencoded` (senders that let the
 * account choose, such as Vonage, send either); null when it is neither.
 */
export function fieldsOf(body: string): Json | null {
  const trimmed = body.trim();
  if (trimmed.startsWith("{")) {
    const parsed = parseJson(trimmed);
    return isRecord(parsed) ? parsed : null;
  }
  if (!trimmed.includes("=")) return null;
  // Form senders post every parameter, empty ones too (`ErrorCode=`): an empty one is an absent one.
  return Object.fromEntries([...new URLSearchParams(trimmed)].filter(([, value]) => value !== ""));
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
  return Object.fromEntries(
    fields.flatMap((f) => (event[f] === undefined || event[f] === null ? [] : [[f, event[f]]])),
  );
}
