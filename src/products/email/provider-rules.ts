import rulesSnapshot from "../../../datasets/snapshots/provider-rules.json";
import type { SidecarAddressResult } from "../../platform/smtp-sidecar-client";
import type { MailboxOutcome } from "./result";
import type { Source } from "./datasets";
import { whole } from "../../engines/sources";

/**
 * The `provider-rules` dataset (datasets/sources/provider-rules.json): how a mail provider's RCPT answers are read
 * beyond the RFC codes the sidecar reads (workers/smtp-sidecar/rcpt-reply.mjs). `mailboxOutcome` is the one place they
 * are applied.
 */
export interface ProviderRule {
  id: string;
  provider: string;
  mx_suffixes: string[];
  /** The provider answers 250 to every RCPT: an acceptance is a catch-all answer, never a confirmed mailbox. */
  accepts_all: boolean;
  /** Replies meaning "no such mailbox" at this provider although their codes say otherwise. */
  no_mailbox_replies: { code?: number; status?: string; text?: string }[];
  notes: string;
}

const RULES = rulesSnapshot.data as ProviderRule[];

export const PROVIDER_RULES_SOURCE: Source = whole(rulesSnapshot.name, rulesSnapshot.version);

/** The rule for a domain's MX hosts (best preference first): the first host any rule matches, first rule winning. */
export function providerRuleFor(hosts: readonly { host: string }[]): ProviderRule | null {
  for (const { host } of hosts) {
    const name = host.toLowerCase().replace(/\.$/, "");
    const rule = RULES.find((r) => r.mx_suffixes.some((suffix) => name === suffix || name.endsWith(`.${suffix}`)));
    if (rule) return rule;
  }
  return null;
}

const saysNoMailbox = (rule: ProviderRule, r: SidecarAddressResult) =>
  r.smtpCode !== null &&
  rule.no_mailbox_replies.some(
    (reply) =>
      (reply.code === undefined || reply.code === r.smtpCode) &&
      (reply.status === undefined || reply.status === r.enhancedStatus) &&
      (reply.text === undefined || (r.smtpMessage ?? "").toLowerCase().includes(reply.text)),
  );

/** The uncertain answer a sidecar outcome stands for: the reason the mailbox could not be told. */
function uncertainOf(outcome: SidecarAddressResult["outcome"] | undefined): MailboxOutcome {
  switch (outcome) {
    case "greylisted":
    case "blocked":
    case "timeout":
      return outcome;
    // Held back by the sidecar's pacing: the request's time was not enough to ask it at the server's pace.
    case "deferred":
      return "timeout";
    default:
      return "provider_unavailable";
  }
}

/**
 * What the sidecar's answer for one address means, the provider's rule applied: an acceptance is `catch_all` when the
 * random address was accepted too or the provider accepts everyone, and a confirmed mailbox only when the domain is
 * known to refuse unknown addresses (the random address refused, or the rule says so); while that is unknown
 * (`catchAllAnswer` greylisted, timed out, blocked, cut short) it is that uncertain answer, never `accepted`. A refusal
 * the rule names is `no_mailbox`; full, disabled, greylisted, blocked and timed-out answers stand (a pacing deferral is
 * a timeout); anything else (policy or system refusals, no conversation) is `provider_unavailable`.
 */
export function mailboxOutcome(
  result: SidecarAddressResult | undefined,
  catchAll: { verdict: boolean | null; answer?: { outcome: SidecarAddressResult["outcome"] } | null },
  rule: ProviderRule | null,
): MailboxOutcome {
  if (!result) return "provider_unavailable";
  if (result.outcome === "accepted") {
    if (catchAll.verdict === true || rule?.accepts_all) return "catch_all";
    return catchAllOf(catchAll.verdict, rule) === false ? "accepted" : uncertainOf(catchAll.answer?.outcome);
  }
  if (rule && saysNoMailbox(rule, result)) return "no_mailbox";
  switch (result.outcome) {
    case "no_mailbox":
    case "mailbox_full":
    case "mailbox_disabled":
      return result.outcome;
    default:
      return uncertainOf(result.outcome);
  }
}

/**
 * Whether the domain is a catch-all, from the random address's answer, else from the rule: a provider whose rule names
 * its own "no such user" replies refuses unknown recipients (its random-address refusal reads as a policy code).
 */
export const catchAllOf = (probed: boolean | null, rule: ProviderRule | null): boolean | null =>
  probed ?? (rule ? (rule.accepts_all || rule.no_mailbox_replies.length === 0 ? null : false) : null);
