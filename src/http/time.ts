import { z } from "zod";

/** A date (`2026-11-01`, the whole day for `until`) or an ISO timestamp, as Unix ms; anything else is a 422. */
export const dateOrTimestamp = (endOfDay: boolean) =>
  z.string().transform((value, ctx) => {
    const bareDate = /^\d{4}-\d{2}-\d{2}$/.test(value);
    const ms = Date.parse(bareDate ? `${value}T00:00:00Z` : value);
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: "custom", message: "Must be a date (YYYY-MM-DD) or an ISO 8601 timestamp." });
      return z.NEVER;
    }
    return bareDate && endOfDay ? ms + 86_400_000 : ms + (endOfDay ? 1 : 0);
  });

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Every list endpoint answers 100 a page. */
export const PER_PAGE = 100;

export const page = z.coerce.number().int().min(1).default(1);
