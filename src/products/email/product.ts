import { DELIVERY_FEEDBACK, SUPPRESSION_LIST } from "../../engines/sources";
import { z } from "zod";
import { database } from "../../db/client";
import { asProduct, type Price, type Product, type ProductContext, type WalkOptions } from "../../engines/product";
import { invalidSyntax, manualSuppression, type MailboxAnswer } from "./answer";
import { asAsked, emailRepeats } from "./as-asked";
import { DEFAULT_TIMEOUT_SECONDS, emailConfig, type EmailExtra } from "./config";
import { emailDomain } from "./domain-product";
import { emailFeedback } from "./feedback";
import { addressMonitor } from "./monitor";
import { emailPolicy } from "./policy";
import { extractAddress } from "./extract";
import { lookupAddresses } from "./lookup";
import type { EmailResult, Outcome } from "./result";
import { recheck, settledSample, type RecheckMessage } from "./settle";
import { mailboxKeyOf } from "./spelling";
import { isConfirmed, recallMailboxes, shareMailboxes, storeMailboxes, type MailboxAnswersMessage } from "./store";
import { parseAddress } from "./syntax";
import { cannedAnswer, TEST_ADDRESSES } from "./test-addresses";
import { normalizeAddress } from "./username";

/**
 * Undeliverable verdicts a mailbox check gave (fair use counts them); every other undeliverable was settled without
 * one.
 */
const CHECKED_UNDELIVERABLE = new Set<string | null>(["mailbox_not_found", "mailbox_disabled"]);

/** How an answer bills (docs/billing.md), read from the answer itself so anyone can recompute it. */
export function outcomeOf(r: EmailResult): Exclude<Outcome, "free"> {
  if (r.reason === "unverified") return "unverified";
  if (r.deliverable === "undeliverable")
    return CHECKED_UNDELIVERABLE.has(r.reason) ? "undeliverable_checked" : "undeliverable_unchecked";
  return "usable";
}

export function emailKey(input: string): string {
  const email = extractAddress(input);
  const parsed = parseAddress(email);
  return parsed ? normalizeAddress(parsed.local, parsed.domain).normalizedEmail : `malformed:${email}`;
}

/** The sandbox answers only the six test addresses (plus-tags allowed). */
export function isTestAddress(input: string): boolean {
  const parsed = parseAddress(extractAddress(input));
  return parsed !== null && cannedAnswer(parsed.local, parsed.domain, input) !== null;
}

const PRICES: Record<Exclude<Outcome, "free">, Price> = {
  usable: { units: 1, counter: "billed_answers" },
  undeliverable_checked: { units: 1, fairUse: true, counter: "undeliverable_checked" },
  undeliverable_unchecked: { units: 0 },
  unverified: { units: 0 },
};

/**
 * The pipeline, with the shared mailbox answers of other lookups: a confirmed answer is reused for a week unless
 * `refresh` or `max_age` say otherwise, an uncertain one (greylisted for 5 minutes, full for 15) unless `refresh` or
 * a settling re-check asks again.
 */
async function lookup(ctx: ProductContext, inputs: string[], options: WalkOptions) {
  const { env, now } = ctx;
  const extra = options.extra as EmailExtra;
  const db = database(env);
  // Shared answers are keyed by the mailbox asked about, so a spelling reuses only what was asked of its own mailbox.
  const emails = inputs.map(mailboxKeyOf);
  const stored = await recallMailboxes(db, emails, now);
  const tooOld = (at: number) =>
    options.refresh || (options.maxAgeSeconds !== null && now - at > options.maxAgeSeconds * 1000);
  const known = emails.map((email) => {
    const mailbox = stored.get(email);
    // `refresh` asks again even for an uncertain answer (docs/api-decisions.md): it may be stale the moment the
    // server would answer (greylisting learnt the sender), and a re-check skips it for the same reason.
    const usable =
      mailbox && (isConfirmed(mailbox) ? !tooOld(mailbox.checkedAt) : !extra.skipUncertainReuse && !options.refresh);
    return { mailbox, usable: usable ? mailbox : null };
  });
  const config = emailConfig(env);
  const prober = config.prober(extra.timeout ?? DEFAULT_TIMEOUT_SECONDS, ctx.accountId);
  const answers = await lookupAddresses(
    config.dns,
    prober,
    inputs.map((input, i) => ({ input, known: known[i]!.usable })),
  );
  const observed = new Map<string, MailboxAnswer>();
  answers.forEach((a, i) => a.observed && observed.set(emails[i]!, a.observed));
  // Shared through the queue after an HTTP request's answer (no D1 primary write on the lookup path).
  await shareMailboxes(env, observed, ctx.defer);
  return answers.map((a, i) => ({ result: a.result, refreshed: Boolean(known[i]!.mailbox && !known[i]!.usable) }));
}

export const email: Product<string, EmailResult> = {
  name: "email",
  scope: "email",
  input: z.string().max(254),
  unitsPerCredit: 1,
  cost: "remote",
  normalize: emailKey,
  asAsked,
  async local(input) {
    const address = extractAddress(input);
    const parsed = parseAddress(address);
    if (!parsed) return { result: invalidSyntax(address).result, test: false };
    const canned = cannedAnswer(parsed.local, parsed.domain, address);
    return canned ? { result: canned, test: true } : null;
  },
  lookup,
  price: (result) => PRICES[outcomeOf(result)],
  repeatable: (result) => outcomeOf(result) !== "unverified",
  repeats: emailRepeats,
  suppressions: {
    suppresses: (result) =>
      result.deliverable === "undeliverable" ? { reason: result.reason ?? "undeliverable" } : null,
    manual: (input) => {
      const parsed = parseAddress(extractAddress(input));
      if (!parsed) return null;
      const key = normalizeAddress(parsed.local, parsed.domain).normalizedEmail;
      return { key, result: manualSuppression(`${parsed.local}@${parsed.domain}`, key) };
    },
    listField: "emails",
    valueField: "email",
  },
  history: {
    row: (r) => ({ value: r.email, key: r.normalized_email, verdict: r.deliverable, reason: r.reason }),
    fields: { value: "email", key: "normalized_email", verdict: "deliverable" },
    verdicts: ["deliverable", "risky", "undeliverable"],
  },
  bulk: {
    field: "emails",
    options: { timeout: z.int().min(2).max(60).nullish() },
    counters: ["deliverable", "risky", "undeliverable"],
    columns: [
      "email",
      "normalized_email",
      "deliverable",
      "reason",
      "risk_score",
      "risk_level",
      "disposable",
      "role",
      "free_provider",
      "catch_all",
      "mx_found",
      "smtp_reason",
      "did_you_mean",
    ],
    row: (d) => [
      d.email,
      d.normalized_email,
      d.deliverable,
      d.reason,
      d.risk_score,
      d.risk_level,
      d.disposable,
      d.role,
      d.free_provider,
      d.catch_all,
      d.mx_found,
      d.smtp_reason,
      d.did_you_mean,
    ],
    spell: (input) => ({ email: extractAddress(input) }),
    verdictColumn: "deliverable",
    sampleCounts: { deliverable: 1, risky: 0, undeliverable: 1 },
  },
  monitor: addressMonitor(emailKey),
  policy: emailPolicy,
  feedback: emailFeedback,
  companions: [asProduct(emailDomain)],
  messages: { recheck: (env, message) => recheck(env, email, message as RecheckMessage) },
  batchedMessages: {
    mailbox_answers: (env, messages) =>
      storeMailboxes(
        env.DB,
        (messages as MailboxAnswersMessage[]).flatMap((m) => m.answers),
      ),
  },
  sampleEvents: { "email.settled": settledSample },
  isSample: isTestAddress,
  samples: TEST_ADDRESSES,
  datasets: [
    "rfc-5322-syntax",
    "live-dns",
    "disposable-domains",
    "role-addresses",
    "free-provider-domains",
    "typo-domains",
    "provider-username-rules",
    "mx-provider-patterns",
    "provider-rules",
    "rdap-registration",
    "mailbox-smtp",
    DELIVERY_FEEDBACK,
    SUPPRESSION_LIST,
    "test-addresses",
  ],
  // Versioned by the time of the check, not a release: a monitor reads their moving as a recheck.
  checked: ["live-dns", "rdap-registration", "mailbox-smtp"],
};
