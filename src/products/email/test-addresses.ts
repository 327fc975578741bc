import { answer, type MailboxAnswer, type Prepared } from "./answer";
import { SOURCES, testAddresses } from "./datasets";
import { domainResult } from "./domain";
import type { DomainResult } from "./result";
import type { EmailResult, Reason, Verdict } from "./result";

/**
 * The six canonical answers on `service.test` (docs/test-addresses.md): fixed, free, no DNS and no mail server. The
 * domain's facts are fixed too, so the same address always gets byte-identical data, and the scores still come from
 * the documented formulas.
 */
const CHECKED_AT = Date.parse("2026-01-01T00:00:00Z");

const FACTS: Prepared["facts"] = {
  dnsAnswered: true,
  mxFound: true,
  mxImplicit: false,
  nullMx: false,
  mxHosts: [{ preference: 10, host: "mx.service.test" }],
  mxProvider: "service-test",
  hasSpf: true,
  dmarcPolicy: "reject",
  hasDmarc: true,
  registeredAt: null,
  ageDays: null,
  rdapAnswered: true,
};

type Canned = {
  verdict: Verdict;
  reason: Reason | null;
  mailbox: MailboxAnswer["outcome"] | null;
  role?: boolean;
  disposable?: boolean;
};

const CANNED: Record<string, Canned> = {
  deliverable: { verdict: "deliverable", reason: null, mailbox: "accepted" },
  unverified: { verdict: "risky", reason: "unverified", mailbox: "greylisted" },
  "catch-all": { verdict: "risky", reason: "catch_all", mailbox: "catch_all" },
  disposable: { verdict: "risky", reason: "disposable", mailbox: null, disposable: true },
  role: { verdict: "risky", reason: "role", mailbox: "accepted", role: true },
  undeliverable: { verdict: "undeliverable", reason: "mailbox_not_found", mailbox: "no_mailbox" },
};

/** The six test addresses, as the docs list them. */
export const TEST_ADDRESSES = Object.keys(CANNED).map((local) => `${local}@service.test`);

/** The canonical answer when `local@domain` is a test address (plus-tags allowed), else null. */
export function cannedAnswer(local: string, domain: string, email: string): EmailResult | null {
  const { domain: testDomain, localParts } = testAddresses();
  if (domain !== testDomain) return null;
  const base = local.toLowerCase().split("+")[0]!;
  const canned = CANNED[base];
  if (!canned || !localParts.has(base)) return null;
  const prepared: Prepared = {
    email,
    local,
    domain,
    normalizedEmail: `${base}@${domain}`,
    isAlias: base !== local.toLowerCase(),
    usernameInvalid: false,
    usernameRuleApplied: false,
    role: canned.role ?? false,
    disposable: canned.disposable ?? false,
    free: false,
    gibberish: false,
    typo: { suggestion: null, typoSquat: false },
    facts: FACTS,
    known: null,
  };
  const mailbox = canned.mailbox ? { outcome: canned.mailbox, checkedAt: CHECKED_AT } : null;
  const result = answer(prepared, canned.verdict, canned.reason, mailbox);
  return { ...result, sources: [SOURCES.test] };
}

/** The canonical domain answer for `service.test`, from the same fixed facts. */
export function cannedDomain(domain: string): DomainResult | null {
  if (domain !== testAddresses().domain) return null;
  return domainResult(domain, FACTS, false, [SOURCES.test]);
}
