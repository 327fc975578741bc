import { z } from "zod";
import { POLICY_ACTIONS, strictest, type PolicyHit, type PolicyShape } from "../../engines/policy/policy";
import { toAsciiHostname } from "./syntax";
import { REASONS, type EmailResult } from "./result";

/**
 * The email sending policy (docs/email-policy.md). Each rule names an action for answers it matches; the answer's
 * action is the strictest asked (block > review > send) and `rules_hit` names the rules that asked for more than send.
 * `allowed_domains` outranks everything (an allowed domain is always `send`); `blocked_domains` always blocks.
 */
const action = z.enum(POLICY_ACTIONS);

const domains = z
  .array(
    z
      .string()
      .max(253)
      .transform((value, ctx) => {
        const host = toAsciiHostname(value.toLowerCase());
        if (!host) ctx.addIssue({ code: "custom", message: "Must be a domain name." });
        return host ?? value;
      }),
  )
  .max(1000);

export const emailPolicyRules = z.strictObject({
  deliverable: z.strictObject({ deliverable: action, risky: action, undeliverable: action }).partial().optional(),
  risk_level: z.strictObject({ low: action, medium: action, high: action }).partial().optional(),
  reasons: z.partialRecord(z.enum(REASONS), action).optional(),
  disposable: action.optional(),
  role: action.optional(),
  catch_all: action.optional(),
  free_provider: action.optional(),
  /** A typo suggestion is present. */
  did_you_mean: action.optional(),
  allowed_domains: domains.optional(),
  blocked_domains: domains.optional(),
});

export type EmailPolicyRules = z.infer<typeof emailPolicyRules>;

/** Domain lists as sets, built once per parsed policy (the engine keeps the parsed rules while they are current). */
const sets = new WeakMap<string[], Set<string>>();

/** The domain or a parent of it is listed (`example.com` covers `mail.example.com`): one set lookup per label. */
function listed(list: string[] | undefined, domain: string): boolean {
  if (!list?.length || !domain) return false;
  let set = sets.get(list);
  if (!set) sets.set(list, (set = new Set(list)));
  for (let at = 0; at !== -1; at = domain.indexOf(".", at + 1)) {
    if (set.has(at === 0 ? domain : domain.slice(at + 1))) return true;
  }
  return false;
}

const FLAGS = ["disposable", "role", "catch_all", "free_provider"] as const;

export function evaluateEmailPolicy(rules: EmailPolicyRules, r: EmailResult) {
  if (listed(rules.allowed_domains, r.domain)) return { action: "send" as const, rules_hit: ["allowed_domains"] };
  const hits: PolicyHit[] = [];
  const hit = (rule: string, asked: PolicyHit["action"] | undefined) => asked && hits.push({ rule, action: asked });
  if (listed(rules.blocked_domains, r.domain)) hit("blocked_domains", "block");
  hit(`deliverable.${r.deliverable}`, rules.deliverable?.[r.deliverable]);
  hit(`risk_level.${r.risk_level}`, rules.risk_level?.[r.risk_level]);
  if (r.reason) hit(`reasons.${r.reason}`, rules.reasons?.[r.reason]);
  for (const flag of FLAGS) if (r[flag]) hit(flag, rules[flag]);
  if (r.did_you_mean) hit("did_you_mean", rules.did_you_mean);
  return strictest(hits);
}

export const emailPolicy: PolicyShape<EmailResult, EmailPolicyRules> = {
  rules: emailPolicyRules,
  evaluate: evaluateEmailPolicy,
};
