import { and, eq, gt } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailboxAnswers } from "./tables";
import { disposableDomains, freeProviderDomains, SOURCES, type Source } from "./datasets";
import type { DomainResult } from "./result";
import { dnsSources, domainFacts, type DnsConfig, type DomainFacts } from "./domain-facts";
import { SHARED_MAILBOX_MS } from "./store";
import { toAsciiHostname } from "./syntax";
import { PROVIDER_RULES_SOURCE, providerRuleFor } from "./provider-rules";
import { liveSource } from "../../engines/sources";

export const normalizeDomain = (input: string) => toAsciiHostname(input.toLowerCase());

export function invalidDomain(input: string): DomainResult {
  return {
    domain: input.toLowerCase(),
    valid: false,
    mx_found: null,
    mx_implicit: null,
    null_mx: null,
    catch_all: null,
    mx_provider: null,
    has_spf: null,
    dmarc_policy: null,
    domain_registered_at: null,
    domain_age_days: null,
    disposable: null,
    free_provider: null,
    sources: null,
  };
}

/** Whether any address at the domain answered catch-all within the week; null when none was checked. */
async function catchAll(db: Database, domain: string, now: number): Promise<boolean | null> {
  const rows = await db
    .select({ outcome: mailboxAnswers.outcome })
    .from(mailboxAnswers)
    .where(and(eq(mailboxAnswers.domain, domain), gt(mailboxAnswers.checkedAt, now - SHARED_MAILBOX_MS)))
    .limit(200);
  if (!rows.length) return null;
  return rows.some((r) => r.outcome === "catch_all");
}

/** The domain answer from its facts: shared by live lookups and the canned `service.test` answer. */
export function domainResult(
  domain: string,
  facts: DomainFacts,
  catchAll: boolean | null,
  sources: Source[],
): DomainResult {
  const known = facts.dnsAnswered;
  return {
    domain,
    valid: true,
    mx_found: known ? facts.mxFound : null,
    mx_implicit: known ? facts.mxImplicit : null,
    null_mx: known ? facts.nullMx : null,
    catch_all: catchAll,
    mx_provider: facts.mxProvider,
    has_spf: facts.hasSpf,
    dmarc_policy: facts.dmarcPolicy,
    domain_registered_at: facts.registeredAt,
    domain_age_days: facts.ageDays,
    disposable: disposableDomains().has(domain),
    free_provider: freeProviderDomains().has(domain),
    sources,
  };
}

export async function domainIntelligence(
  config: DnsConfig,
  db: Database,
  domain: string,
  now = Date.now(),
): Promise<DomainResult> {
  const [facts, isCatchAll] = await Promise.all([domainFacts(config, domain, now), catchAll(db, domain, now)]);
  const [dns, ...rdap] = dnsSources(facts);
  const sources: Source[] = [dns!, SOURCES.disposable, SOURCES.free];
  if (facts.mxProvider !== null) sources.push(SOURCES.mx);
  sources.push(...rdap);
  if (isCatchAll !== null)
    sources.push(liveSource({ dataset: "mailbox-smtp", version: "shared-7d", answered: true, standIn: facts.standIn }));
  // An accept-all provider's answers are catch-all by its rule, not by the random-address test alone.
  if (isCatchAll !== null && providerRuleFor(facts.mxHosts)) sources.push(PROVIDER_RULES_SOURCE);
  return domainResult(domain, facts, isCatchAll, sources);
}
