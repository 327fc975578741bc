import type { Context } from "hono";
import { z } from "zod";
import { POLICY_ACTIONS } from "../engines/policy/policy";
import type { AppEnv } from "../types";

/**
 * What a browser endpoint (`/{product}/public`) answers: the lookup's data, no meta, and of the site's sending policy
 * only its `action`. `rules_hit` names the site's own rules (its blocked domains, what it reviews), which the page
 * needs no more than the visitor should read them (docs/email-policy.md, "Browser answers").
 */
export const browserPolicySchema = z.object({ action: z.enum(POLICY_ACTIONS) }).nullable();

/** A product's result schema as a browser endpoint answers it. */
export function browserSchema<S extends z.ZodObject>(schema: S): z.ZodObject {
  return "policy" in schema.shape ? schema.extend({ policy: browserPolicySchema }) : schema;
}

/** `data` with its policy cut down to the action. */
export function browserData<T extends object>(data: T): T {
  const policy = (data as { policy?: { action: string } | null }).policy;
  return policy ? { ...data, policy: { action: policy.action } } : data;
}

/** `{success: true, data}` for a browser endpoint. */
export const browserOk = <T extends object>(c: Context<AppEnv>, data: T) =>
  c.json({ success: true as const, data: browserData(data) });
