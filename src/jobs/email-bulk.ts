import { ApiError } from "../http/errors";
import { extractAddress } from "../products/email/extract";
import { DEFAULT_TIMEOUT_SECONDS, lookupForPayer } from "../products/email/service";
import { parseAddress } from "../products/email/syntax";
import { normalizeAddress } from "../products/email/username";
import type { BulkProduct } from "./product";

export interface EmailBulkOptions {
  refresh?: boolean | null;
  max_age?: number | null;
  timeout?: number | null;
}

/** Email plugged into the bulk engine: rows bill and answer exactly like batch lookups (suppressions honoured). */
export const emailBulk: BulkProduct<EmailBulkOptions> = {
  name: "email",
  event: "bulk_email_job.finished",
  countKeys: ["deliverable", "risky", "undeliverable"],
  dedupeKey(input) {
    const email = extractAddress(input);
    const parsed = parseAddress(email);
    return parsed ? normalizeAddress(parsed.local, parsed.domain).normalizedEmail : `malformed:${email}`;
  },
  csvHeader: [
    "index", "input", "email", "normalized_email", "deliverable", "reason", "risk_score", "risk_level", "disposable",
    "role", "free_provider", "catch_all", "mx_found", "smtp_reason", "did_you_mean", "credits_used", "suppressed",
  ],
  duplicateRow(row, input) {
    const copy = [...row];
    copy[0] = input;
    copy[1] = extractAddress(input);
    copy[copy.length - 2] = 0; // credits_used: a repeat within the list is free
    return copy;
  },
  async process(ctx, inputs, options) {
    const lookupOptions = {
      refresh: options.refresh ?? false,
      maxAgeSeconds: options.max_age ?? null,
      timeoutSeconds: options.timeout ?? DEFAULT_TIMEOUT_SECONDS,
      honorSuppressions: true,
    };
    const payer = { accountId: ctx.accountId, keyId: ctx.keyId, dailyCreditCap: ctx.dailyCreditCap };
    try {
      const run = await lookupForPayer({ env: ctx.env, payer, requestId: ctx.operationId, operationId: ctx.operationId }, inputs, lookupOptions);
      return {
        rows: run.items.map(({ input, data: d, meta }) => [
          input, d.email, d.normalized_email, d.deliverable, d.reason, d.risk_score, d.risk_level, d.disposable, d.role,
          d.free_provider, d.catch_all, d.mx_found, d.smtp_reason, d.did_you_mean, meta.credits_used, meta.suppressed,
        ]),
        countKey: run.items.map((item) => item.data.deliverable),
        creditsUsed: run.creditsUsed,
        stoppedReason: run.stoppedReason,
      };
    } catch (err) {
      if (err instanceof ApiError && (err.code === "INSUFFICIENT_CREDITS" || err.code === "KEY_SPEND_CAP_REACHED")) {
        const stoppedReason = err.code === "KEY_SPEND_CAP_REACHED" ? "key_spend_cap" : "insufficient_credits";
        return { rows: [], countKey: [], creditsUsed: 0, stoppedReason };
      }
      throw err;
    }
  },
};

export const BULK_PRODUCTS = { email: emailBulk } as const;
