import type { MailboxAnswer, Prepared } from "./answer";
import { disposableDomains, freeProviderDomains, roleLocalParts, usernameRules } from "./datasets";
import type { DomainFacts } from "./domain-facts";
import { extractAddress } from "./extract";
import { isGibberish } from "./gibberish";
import type { EmailResult, MailboxOutcome } from "./result";
import { parseAddress } from "./syntax";
import { checkTypo } from "./typo";
import { normalizeAddress } from "./username";

/**
 * What belongs to one spelling of an address, and which spellings share a mailbox (docs/email.md, "Spellings of one
 * address"). A handshake answers for the address it asked about. Another spelling is the same mailbox only where the
 * provider's username rule says the provider delivers both there (Gmail: dots and +tags; the rules' providers fold
 * case too); everywhere else only the same spelling is, since RFC 5321 2.4 leaves the local part's case, like any
 * tag, to the receiving server. The domain part is case-insensitive everywhere (RFC 5321 2.4).
 */
export function mailboxKey(local: string, domain: string): string {
  return usernameRules().has(domain) ? normalizeAddress(local, domain).normalizedEmail : `${local}@${domain}`;
}

/** The mailbox key of an input as a caller wrote it; malformed input keys as written (it is never probed). */
export function mailboxKeyOf(input: string): string {
  const email = extractAddress(input);
  const parsed = parseAddress(email);
  return parsed ? mailboxKey(parsed.local, parsed.domain) : email;
}

/** Everything about one well-formed spelling, with its domain's facts and a remembered mailbox answer, if any. */
export function prepareSpelling(
  local: string,
  domain: string,
  facts: DomainFacts,
  known: MailboxAnswer | null,
): Prepared {
  const normalized = normalizeAddress(local, domain);
  const tagless = local.toLowerCase().split("+")[0]!;
  return {
    email: `${local}@${domain}`,
    local,
    domain,
    normalizedEmail: normalized.normalizedEmail,
    isAlias: normalized.isAlias,
    usernameInvalid: normalized.usernameInvalid,
    usernameRuleApplied: normalized.ruleApplied,
    role: roleLocalParts().has(tagless),
    disposable: disposableDomains().has(domain),
    free: freeProviderDomains().has(domain),
    gibberish: isGibberish(local),
    typo: checkTypo(domain),
    facts,
    known,
  };
}

/**
 * The domain's facts as an answer reports them (`mx_found` false with any reason but no_mx / null_mx: DNS was silent).
 */
export function factsOf(r: EmailResult): DomainFacts {
  return {
    dnsAnswered: r.mx_found || r.reason === "no_mx" || r.reason === "null_mx",
    mxFound: r.mx_found,
    mxImplicit: r.mx_implicit,
    nullMx: r.reason === "null_mx",
    mxHosts: [],
    mxProvider: r.mx_provider,
    hasSpf: r.has_spf,
    dmarcPolicy: r.dmarc_policy,
    // Answers stored before `has_dmarc` existed: a policy was seen, or nothing is known.
    hasDmarc: r.has_dmarc ?? (r.dmarc_policy !== null ? true : null),
    registeredAt: r.domain_registered_at,
    ageDays: r.domain_age_days,
  };
}

const UNCERTAIN: Partial<Record<string, MailboxOutcome>> = {
  greylisted: "greylisted",
  blocked: "blocked",
  timeout: "timeout",
  provider_unavailable: "provider_unavailable",
};

/** The mailbox answer an answer reports, or null when it settled before any handshake. */
export function mailboxOf(r: EmailResult): MailboxAnswer | null {
  const checkedAt = r.smtp_checked_at ? Date.parse(r.smtp_checked_at) : 0;
  if (r.smtp_checked) {
    const outcome = r.catch_all === true ? "catch_all" : r.mailbox_exists === false ? "no_mailbox" : "accepted";
    return { outcome, checkedAt, catchAll: r.catch_all };
  }
  const uncertain = r.smtp_reason ? UNCERTAIN[r.smtp_reason] : undefined;
  return uncertain ? { outcome: uncertain, checkedAt } : null;
}
