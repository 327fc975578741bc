import type { SidecarProbeResult } from "../../platform/smtp-sidecar-client";
import { answer, fromMailbox, invalidSyntax, type MailboxAnswer, type Prepared } from "./answer";
import { domainFacts, type DnsConfig, type DomainFacts } from "./domain-facts";
import { extractAddress } from "./extract";
import type { EmailResult, Outcome, Reason, Verdict } from "./result";

export type { MailboxAnswer };
import { catchAllOf, mailboxOutcome, providerRuleFor } from "./provider-rules";
import { parseAddress } from "./syntax";
import { cannedAnswer } from "./test-addresses";
import { prepareSpelling } from "./spelling";

/**
 * Runs mailbox handshakes for any number of addresses at one domain, answering each (one SMTP session where the server
 * allows it; the sidecar client splits a long list: src/platform/domain-probe.ts). `catchAllKnown`: the provider's
 * rule already says whether the domain takes any address, so no random address is asked.
 */
export type MailboxProber = (request: {
  domain: string;
  mxHosts: DomainFacts["mxHosts"];
  addresses: string[];
  catchAllKnown: boolean | null;
}) => Promise<SidecarProbeResult>;

export interface LookupItem {
  input: string;
  /** A remembered handshake answer (shared confirmed answer or a recent uncertain one); skips the handshake. */
  known?: MailboxAnswer | null;
}

export interface LookupAnswer {
  result: EmailResult;
  outcome: Outcome;
  /** A handshake answer obtained by this lookup, for the shared caches. */
  observed: MailboxAnswer | null;
  /** True when the answer is a canonical test-address answer. */
  test: boolean;
}

/**
 * The free signals that settle an answer before any handshake (spec, POST /email rule 1). MX comes first when DNS
 * answered; the lists and provider username rules need no DNS, so they settle an answer even when the resolver is
 * unreachable, and only what they leave open stays undecided.
 */
export function settledWithoutProbe(p: Prepared): { verdict: Verdict; reason: Reason } | null {
  if (p.facts.dnsAnswered && p.facts.nullMx) return { verdict: "undeliverable", reason: "null_mx" };
  if (p.facts.dnsAnswered && !p.facts.mxFound) return { verdict: "undeliverable", reason: "no_mx" };
  // A known misspelling is reported as such even when lists also call it disposable: the correction is what helps.
  if (p.typo.typoSquat) return { verdict: "risky", reason: "typo_domain" };
  if (p.disposable) return { verdict: "risky", reason: "disposable" };
  if (p.usernameInvalid) return { verdict: "undeliverable", reason: "invalid_username" };
  return null;
}

async function prepare(
  config: DnsConfig,
  local: string,
  domain: string,
  known: MailboxAnswer | null,
): Promise<Prepared> {
  return prepareSpelling(local, domain, await domainFacts(config, domain), known);
}

/**
 * The email pipeline for a list of addresses, in the spec's order: extraction, syntax, test addresses, DNS (MX with
 * null/implicit rules, SPF, DMARC), the lists, provider username rules, RDAP age, and last the mailbox handshake: one
 * prober call per domain for all addresses there that still need it, whatever their number.
 */
export async function lookupAddresses(
  config: DnsConfig,
  prober: MailboxProber,
  items: LookupItem[],
): Promise<LookupAnswer[]> {
  type Stage = { done: LookupAnswer; prepared?: undefined } | { done?: undefined; prepared: Prepared };
  const staged = await Promise.all(
    items.map(async (item): Promise<Stage> => {
      const email = extractAddress(item.input);
      const parsed = parseAddress(email);
      if (!parsed) return { done: invalidSyntax(email) };
      const canned = cannedAnswer(parsed.local, parsed.domain, email);
      if (canned) return { done: { result: canned, outcome: "free", observed: null, test: true } };
      return { prepared: await prepare(config, parsed.local, parsed.domain, item.known ?? null) };
    }),
  );

  const toProbe = new Map<string, Prepared[]>();
  for (const stage of staged) {
    const p = stage.prepared;
    if (!p || p.known || settledWithoutProbe(p) || !p.facts.dnsAnswered) continue;
    toProbe.set(p.domain, [...(toProbe.get(p.domain) ?? []), p]);
  }
  const observed = new Map<Prepared, MailboxAnswer>();
  await Promise.all(
    [...toProbe].map(async ([domain, group]) => {
      const mxHosts = group[0]!.facts.mxHosts;
      const rule = providerRuleFor(mxHosts);
      const addresses = [...new Set(group.map((p) => p.email))];
      const probe = await prober({ domain, mxHosts, addresses, catchAllKnown: catchAllOf(null, rule) });
      const checkedAt = Date.parse(probe.checkedAt) || Date.now();
      const catchAll = { verdict: probe.catchAll, answer: probe.catchAllAnswer };
      // Exact spelling first: a server may tell `Bob` from `bob` (RFC 5321), and both can be in one list.
      const exact = new Map(probe.results.map((r) => [r.address, r]));
      const folded = new Map(probe.results.toReversed().map((r) => [r.address.toLowerCase(), r]));
      for (const p of group) {
        const found = exact.get(p.email) ?? folded.get(p.email.toLowerCase());
        const outcome = mailboxOutcome(found, catchAll, rule);
        observed.set(p, {
          outcome,
          checkedAt,
          ...(outcome === "accepted" ? { catchAll: catchAllOf(probe.catchAll, rule) } : {}),
        });
      }
    }),
  );

  return staged.map((stage) => {
    if (stage.done) return stage.done;
    const p = stage.prepared;
    const settled = settledWithoutProbe(p);
    if (settled) {
      const outcome: Outcome = settled.verdict === "undeliverable" ? "undeliverable_unchecked" : "usable";
      return { result: answer(p, settled.verdict, settled.reason, null), outcome, observed: null, test: false };
    }
    const fresh = observed.get(p) ?? null;
    const mailbox = p.known ?? fresh ?? { outcome: "provider_unavailable" as const, checkedAt: Date.now() };
    const { verdict, reason, outcome } = fromMailbox(p, mailbox);
    return { result: answer(p, verdict, reason, mailbox), outcome, observed: fresh, test: false };
  });
}
