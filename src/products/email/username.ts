import { usernameRules } from "./datasets";

/**
 * Provider-specific username rules (dataset `provider-username-rules`): how each big mailbox provider folds addresses
 * (plus tags, ignored dots, Yahoo's `base-keyword` aliases) and which usernames it can ever have issued.
 */
export interface Normalized {
  normalizedEmail: string;
  isAlias: boolean;
  /** True when a provider rule applies and the username could never exist there. */
  usernameInvalid: boolean;
  /** A provider rule was consulted. */
  ruleApplied: boolean;
}

export function normalizeAddress(local: string, domain: string): Normalized {
  const lower = local.toLowerCase();
  const rule = usernameRules().get(domain);
  const hasTag = /^[^+]+\+/.test(lower);
  if (!rule) {
    return { normalizedEmail: `${lower}@${domain}`, isAlias: hasTag, usernameInvalid: false, ruleApplied: false };
  }
  let base = lower;
  if (rule.plus_tags && hasTag) base = base.slice(0, base.indexOf("+"));
  const yahooAlias = rule.hyphen_alias && /^[^-]+-[^-]+$/.test(base);
  if (yahooAlias) base = base.slice(0, base.indexOf("-"));
  // Judged before ignored dots are dropped, and lengths read the lenient way: a wrong rejection costs more than a miss.
  const written = base;
  if (rule.dots_ignored) base = base.replaceAll(".", "");
  // Providers whose domains are one mailbox (gmail.com and googlemail.com) fold them; others keep the domain given.
  const canonicalDomain = rule.canonical_domain ?? domain;
  const invalid =
    written.length < rule.min_length ||
    base.length > rule.max_length ||
    !rule.allowed.test(written) ||
    (rule.start !== null && !rule.start.test(written)) ||
    (rule.end !== null && !rule.end.test(written));
  return {
    normalizedEmail: `${base}@${canonicalDomain}`,
    isAlias: base !== lower || canonicalDomain !== domain,
    usernameInvalid: invalid,
    ruleApplied: true,
  };
}
