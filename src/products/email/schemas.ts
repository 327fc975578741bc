import { z } from "zod";
import { policyDecisionSchema } from "../../engines/policy/policy";
import { REASONS, SMTP_REASONS } from "./result";
import { sourcesSchema } from "../../engines/sources";

/** Response schemas of the email endpoints, for the OpenAPI document (docs/email.md describes each field). */

export const emailResultSchema = z.object({
  email: z.string(),
  normalized_email: z.string(),
  is_alias: z.boolean(),
  is_gibberish: z.boolean(),
  deliverable: z.enum(["deliverable", "risky", "undeliverable"]),
  reason: z.enum(REASONS).nullable(),
  risk_score: z.int().min(0).max(100),
  risk_level: z.enum(["low", "medium", "high"]),
  risk_components: z.record(z.string(), z.int()),
  syntax_valid: z.boolean(),
  domain: z.string(),
  mx_found: z.boolean(),
  mx_implicit: z.boolean(),
  mx_provider: z.string().nullable(),
  has_spf: z.boolean().nullable(),
  dmarc_policy: z.enum(["none", "quarantine", "reject"]).nullable(),
  has_dmarc: z.boolean().nullable(),
  domain_registered_at: z.iso.date().nullable(),
  domain_age_days: z.int().nullable(),
  disposable: z.boolean(),
  role: z.boolean(),
  free_provider: z.boolean(),
  smtp_checked: z.boolean(),
  smtp_checked_at: z.iso.datetime().nullable(),
  mailbox_exists: z.boolean().nullable(),
  catch_all: z.boolean().nullable(),
  smtp_reason: z.enum(SMTP_REASONS).nullable(),
  mailbox_confidence: z.number().min(0).max(1).nullable(),
  did_you_mean: z.string().nullable(),
  sources: sourcesSchema,
  policy: policyDecisionSchema,
});

export const domainResultSchema = z.object({
  domain: z.string(),
  valid: z.boolean(),
  mx_found: z.boolean().nullable(),
  mx_implicit: z.boolean().nullable(),
  null_mx: z.boolean().nullable(),
  catch_all: z.boolean().nullable(),
  mx_provider: z.string().nullable(),
  has_spf: z.boolean().nullable(),
  dmarc_policy: z.string().nullable(),
  domain_registered_at: z.iso.date().nullable(),
  domain_age_days: z.int().nullable(),
  disposable: z.boolean().nullable(),
  free_provider: z.boolean().nullable(),
  sources: sourcesSchema.nullable(),
});
