import type { Context } from "hono";
import { creditsOf } from "../../billing/credits";
import { database } from "../../db/client";
import { ApiError } from "../../http/errors";
import { probeMailboxes, type SidecarTarget } from "../../platform/smtp-sidecar-client";
import type { AppEnv } from "../../types";
import type { MailboxAnswer } from "./answer";
import type { DnsConfig } from "./domain-facts";
import { extractAddress } from "./extract";
import { lookupAddresses, type LookupAnswer, type MailboxProber } from "./lookup";
import type { EmailResult, Outcome } from "./result";
import { isConfirmed, recall, remember, type Remember } from "./store";
import { parseAddress } from "./syntax";
import { cannedAnswer } from "./test-addresses";
import { normalizeAddress } from "./username";

export interface EmailOptions {
  refresh: boolean;
  maxAgeSeconds: number | null;
  timeoutSeconds: number;
  /** Batches and bulk runs answer suppressed addresses from the stored verdict; a single lookup never does. */
  honorSuppressions: boolean;
  /** Settling re-checks must ask the mail server again, past the 15-minute reuse of uncertain answers. */
  skipUncertainReuse?: boolean;
}

export interface ItemMeta {
  credits_used: number;
  cache_hit: boolean;
  suppressed: boolean;
  refreshed: boolean;
  fair_use_billed: boolean;
}

export interface ItemAnswer {
  index: number;
  input: string;
  data: EmailResult;
  meta: ItemMeta;
}

export type StoppedReason = "insufficient_credits" | "key_spend_cap";

export interface EmailRun {
  items: ItemAnswer[];
  requested: number;
  processed: number;
  creditsUsed: number;
  creditsRemaining: number;
  stoppedReason: StoppedReason | null;
}

export const DEFAULT_TIMEOUT_SECONDS = 10;

export function emailConfig(env: Env): { dns: DnsConfig; prober: (timeoutSeconds: number) => MailboxProber } {
  const target: SidecarTarget | null = env.SMTP_SIDECAR_URL ? { url: env.SMTP_SIDECAR_URL } : null;
  return {
    dns: { dohUrl: env.DOH_URL, rdapBaseUrl: env.RDAP_BASE_URL || undefined },
    prober: (timeoutSeconds) => async (domain, mxHosts, addresses) => {
      const request = { domain, mxHosts, addresses, timeoutMs: timeoutSeconds * 1000 };
      if (target) return probeMailboxes(target, env.SMTP_SIDECAR_SECRET, request);
      const results = addresses.map((address) => ({ address, outcome: "provider_unavailable" as const, smtpCode: null, smtpMessage: null }));
      return { mxHost: null, catchAll: null, checkedAt: new Date().toISOString(), results };
    },
  };
}

/** Fresh answers that cost a credit (undeliverable ones only past the fair-use allowance). */
function cost(outcome: Outcome, fairUseLeft: { n: number }): { credits: number; fairUseBilled: boolean } {
  if (outcome === "usable") return { credits: 1, fairUseBilled: false };
  if (outcome !== "undeliverable_checked") return { credits: 0, fairUseBilled: false };
  if (fairUseLeft.n > 0) {
    fairUseLeft.n -= 1;
    return { credits: 0, fairUseBilled: false };
  }
  return { credits: 1, fairUseBilled: true };
}

interface Unique {
  key: string;
  index: number;
  input: string;
  email: string;
  /** Answered without credits: malformed, test address, repeat or suppressed. */
  free?: { result: EmailResult; cacheHit: boolean; suppressed: boolean } | "local";
  known: MailboxAnswer | null;
  refreshed: boolean;
}

/**
 * Answers a list of addresses in order, billing each like a single lookup: free answers first need nothing; fresh ones
 * run in waves no larger than the credits still reserved, so the walk stops exactly where credits run out. Repeats
 * within the list are looked up once. Throws 402/429 only when the very first address cannot be paid for.
 */
export async function runEmailLookups(c: Context<AppEnv>, inputs: string[], options: EmailOptions): Promise<EmailRun> {
  const principal = c.var.principal;
  const payer = principal && principal.kind !== "sandbox" ? { accountId: principal.accountId, keyId: principal.keyId, dailyCreditCap: principal.dailyCreditCap } : null;
  const run = await lookupForPayer({ env: c.env, payer, requestId: c.var.requestId }, inputs, options);
  c.set("creditsUsed", (c.var.creditsUsed ?? 0) + run.creditsUsed);
  return run;
}

/** Who pays for a list of lookups: an account and the key whose daily cap applies (null for the sandbox). */
export interface LookupContext {
  env: Env;
  payer: { accountId: string; keyId: string; dailyCreditCap: number | null } | null;
  /** Ledger and history id: the HTTP request id, or a bulk run's chunk id. */
  requestId: string;
  /** Set for queued work: settling the same operation twice charges once (see AccountCredits.settle). */
  operationId?: string;
}

/** `runEmailLookups` without HTTP: bulk runs call it per chunk with the run's account and key. */
export async function lookupForPayer(ctx: LookupContext, inputs: string[], options: EmailOptions): Promise<EmailRun> {
  const { env, payer } = ctx;
  const accountId = payer?.accountId ?? null;
  const db = database(env);
  const now = Date.now();
  const config = emailConfig(env);

  const byKey = new Map<string, Unique>();
  const keyOf: string[] = [];
  for (const [index, input] of inputs.entries()) {
    const email = extractAddress(input);
    const parsed = parseAddress(email);
    const key = parsed ? normalizeAddress(parsed.local, parsed.domain).normalizedEmail : `malformed:${email}`;
    keyOf.push(key);
    if (byKey.has(key)) continue;
    const local = !parsed || cannedAnswer(parsed.local, parsed.domain, email) !== null;
    byKey.set(key, { key, index, input, email: email.toLowerCase(), ...(local ? { free: "local" as const } : {}), known: null, refreshed: false });
  }
  const uniques = [...byKey.values()];

  if (accountId) {
    const open = uniques.filter((u) => !u.free);
    const stored = await recall(db, accountId, open.map((u) => u.key), open.map((u) => u.email), options.honorSuppressions, now);
    const tooOld = (at: number) => options.refresh || (options.maxAgeSeconds !== null && now - at > options.maxAgeSeconds * 1000);
    for (const u of open) {
      const suppressed = stored.suppressed.get(u.key);
      const repeat = stored.repeats.get(u.key);
      const mailbox = stored.mailboxes.get(u.email);
      if (suppressed) u.free = { result: suppressed, cacheHit: false, suppressed: true };
      else if (repeat && !tooOld(repeat.createdAt)) u.free = { result: repeat.result as EmailResult, cacheHit: true, suppressed: false };
      else {
        const usable = mailbox && (isConfirmed(mailbox) ? !tooOld(mailbox.checkedAt) : !options.skipUncertainReuse);
        u.known = usable ? mailbox : null;
        u.refreshed = Boolean(repeat || (mailbox && !usable));
      }
    }
  }

  const fresh = uniques.filter((u) => !u.free);
  const credits = accountId ? creditsOf(env, accountId) : null;
  let granted = fresh.length;
  let limitedBy: StoppedReason | null = null;
  let reservationId: string | null = null;
  const fairUseLeft = { n: 0 };
  if (credits && fresh.length) {
    const reservation = await credits.reserve({
      requestId: ctx.requestId,
      amount: fresh.length,
      minimum: 1,
      keyId: payer?.keyId ?? null,
      dailyCreditCap: payer?.dailyCreditCap ?? null,
    });
    if (reservation.ok) {
      ({ granted, reservationId } = reservation);
      limitedBy = reservation.limitedBy;
      fairUseLeft.n = reservation.fairUseRemaining;
    } else {
      granted = 0;
      limitedBy = reservation.reason;
    }
  }

  const answers = new Map<string, { answer: LookupAnswer; credits: number; fairUseBilled: boolean }>();
  const localOnes = uniques.filter((u) => u.free === "local");
  const localAnswers = await lookupAddresses(config.dns, config.prober(options.timeoutSeconds), localOnes.map((u) => ({ input: u.input })));
  localOnes.forEach((u, i) => answers.set(u.key, { answer: localAnswers[i]!, credits: 0, fairUseBilled: false }));

  let slots = granted;
  let charged = 0;
  const pending = [...fresh];
  let stopIndex = inputs.length;
  try {
    while (pending.length) {
      if (slots <= 0) {
        stopIndex = pending[0]!.index;
        break;
      }
      const wave = pending.splice(0, slots);
      const waveAnswers = await lookupAddresses(
        config.dns,
        config.prober(options.timeoutSeconds),
        wave.map((u) => ({ input: u.input, known: u.known })),
      );
      wave.forEach((u, i) => {
        const answer = waveAnswers[i]!;
        const price = accountId ? cost(answer.outcome, fairUseLeft) : { credits: 0, fairUseBilled: false };
        slots -= price.credits;
        charged += price.credits;
        answers.set(u.key, { answer, ...price });
      });
    }
  } catch (err) {
    if (credits && reservationId) await credits.release(reservationId);
    throw err;
  }

  if (stopIndex === 0) {
    if (credits && reservationId) await credits.release(reservationId);
    throw limitedBy === "key_spend_cap"
      ? new ApiError("KEY_SPEND_CAP_REACHED", "This key has reached its daily credit cap; it resets at 00:00 UTC.")
      : new ApiError("INSUFFICIENT_CREDITS", "The balance is empty; the lookup did not run.");
  }

  const counted = [...answers.values()];
  const usage = {
    billed_answers: counted.filter((a) => a.answer.outcome === "usable" && a.credits > 0).length,
    undeliverable_checked: counted.filter((a) => a.answer.outcome === "undeliverable_checked").length,
  };
  const operation = ctx.operationId ? { operationId: ctx.operationId } : {};
  // Settling and remembering are independent: run them together rather than one after the other.
  const remainingCredits: Promise<number> = !credits
    ? Promise.resolve(0)
    : reservationId
      ? credits.settle(reservationId, { credits: charged, usage, ...operation }).then((s) => s.remaining)
      : credits.snapshot().then((s) => s.available);

  const items: ItemAnswer[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < stopIndex; index++) {
    const key = keyOf[index]!;
    const u = byKey.get(key)!;
    const first = !seen.has(key);
    seen.add(key);
    const free = u.free && u.free !== "local" ? u.free : null;
    const done = answers.get(key);
    const data = free ? free.result : done!.answer.result;
    items.push({
      index,
      input: inputs[index]!,
      data,
      meta: {
        credits_used: first ? (done?.credits ?? 0) : 0,
        cache_hit: free ? free.cacheHit : !first,
        suppressed: free?.suppressed ?? false,
        refreshed: first && u.refreshed,
        fair_use_billed: first && (done?.fairUseBilled ?? false),
      },
    });
  }

  const isTest = (item: ItemAnswer) => answers.get(keyOf[item.index]!)?.answer.test === true;
  const [remaining] = await Promise.all([
    remainingCredits,
    accountId ? remember(db, memory(accountId, ctx.requestId, now, uniques, answers, items.filter((item) => !isTest(item)), options)) : null,
  ]);
  return {
    items,
    requested: inputs.length,
    processed: items.length,
    creditsUsed: charged,
    creditsRemaining: remaining,
    stoppedReason: stopIndex < inputs.length ? (limitedBy ?? "insufficient_credits") : null,
  };
}

function memory(
  accountId: string,
  requestId: string,
  now: number,
  uniques: Unique[],
  answers: Map<string, { answer: LookupAnswer; credits: number }>,
  items: ItemAnswer[],
  options: EmailOptions,
): Remember {
  const fresh = uniques.flatMap((u) => {
    const done = answers.get(u.key);
    return !u.free && done ? [{ u, ...done }] : [];
  });
  const mailboxes = new Map<string, MailboxAnswer>();
  for (const { u, answer } of fresh) {
    if (answer.observed && answer.observed.outcome !== "provider_unavailable") mailboxes.set(u.email, answer.observed);
  }
  return {
    accountId,
    requestId,
    now,
    answers: fresh.filter((f) => f.answer.outcome !== "unverified").map((f) => ({ key: f.u.key, result: f.answer.result })),
    mailboxes,
    suppress: fresh.filter((f) => f.answer.result.deliverable === "undeliverable").map((f) => f.answer.result),
    unsuppress: options.honorSuppressions
      ? []
      : fresh.filter((f) => f.answer.result.deliverable !== "undeliverable").map((f) => f.answer.result.normalized_email),
    history: items.map((item) => ({ result: item.data, credits: item.meta.credits_used, cacheHit: item.meta.cache_hit, suppressed: item.meta.suppressed })),
  };
}
