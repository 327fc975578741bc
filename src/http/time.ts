import { z } from "zod";

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]` and a zone (`Z` or `±HH:MM`), which a timestamp must carry. */
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/;

/** Unix ms of an ISO date or timestamp whose calendar date exists (no 30 February), else NaN. */
function parseIso(value: string): number {
  const match = ISO.exec(value);
  if (!match || (match[4] !== undefined && match[7] === undefined)) return Number.NaN;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return Number.NaN;
  return Date.parse(match[4] === undefined ? `${value}T00:00:00Z` : value);
}

/**
 * A date (`2026-11-01`, the whole day for `until`) or an ISO 8601 timestamp with a zone, as Unix ms; anything else,
 * including a date that does not exist (`2026-02-30`) or a bare number, is a 422.
 */
export const dateOrTimestamp = (endOfDay: boolean) =>
  z.string().transform((value, ctx) => {
    const bareDate = /^\d{4}-\d{2}-\d{2}$/.test(value);
    const ms = parseIso(value);
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: "custom", message: "Must be a date (YYYY-MM-DD) or an ISO 8601 timestamp." });
      return z.NEVER;
    }
    return bareDate && endOfDay ? ms + 86_400_000 : ms + (endOfDay ? 1 : 0);
  });

export { iso, PER_PAGE } from "../db/listing";

export const page = z.coerce.number().int().min(1).default(1);
