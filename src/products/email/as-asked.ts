import { answer, fromMailbox } from "./answer";
import { extractAddress } from "./extract";
import { settledWithoutProbe } from "./lookup";
import type { EmailResult } from "./result";
import { factsOf, mailboxKey, mailboxOf, prepareSpelling } from "./spelling";
import { parseAddress } from "./syntax";
import { cannedAnswer } from "./test-addresses";
import { normalizeAddress } from "./username";

/** Verdicts the account gave a normalized address (its suppression list): they hold for every spelling of it. */
const ACCOUNT_VERDICTS = new Set(["suppressed", "bounced", "complained"]);

/**
 * One answer serving another spelling of its normalized address (a 7-day repeat, a copy within a list, a suppressed
 * address), as that spelling's own answer: `email`, `normalized_email`, `is_alias`, `role`, `is_gibberish`,
 * `did_you_mean` and the provider's username rule are computed for the spelling asked, never copied; the domain's
 * facts carry over; the mailbox answer carries over only to a spelling of the same mailbox (`mailboxKey`). Verdict,
 * reason and scores then follow from those, exactly as for a fresh lookup. A spelling of another mailbox gets no
 * mailbox answer: `unverified` (the walk looks such a repeat up again instead, `emailRepeats`).
 */
export function asAsked(stored: EmailResult, input: string): EmailResult {
  const parsed = stored.syntax_valid ? parseAddress(extractAddress(input)) : null;
  if (!parsed) return stored;
  const email = `${parsed.local}@${parsed.domain}`;
  if (email === stored.email) return stored;
  const canned = cannedAnswer(parsed.local, parsed.domain, email);
  if (canned) return canned;
  if (stored.reason !== null && ACCOUNT_VERDICTS.has(stored.reason)) {
    const { normalizedEmail, isAlias } = normalizeAddress(parsed.local, parsed.domain);
    return { ...stored, email, normalized_email: normalizedEmail, is_alias: isAlias };
  }
  const storedSpelling = parseAddress(stored.email);
  const sameMailbox =
    storedSpelling !== null &&
    mailboxKey(storedSpelling.local, storedSpelling.domain) === mailboxKey(parsed.local, parsed.domain);
  const mailbox = sameMailbox ? mailboxOf(stored) : null;
  const p = prepareSpelling(parsed.local, parsed.domain, factsOf(stored), mailbox);
  const settled = settledWithoutProbe(p);
  if (settled) return { ...answer(p, settled.verdict, settled.reason, null), policy: stored.policy };
  if (!mailbox) return { ...answer(p, "risky", "unverified", null), policy: stored.policy };
  const { verdict, reason } = fromMailbox(p, mailbox);
  return { ...answer(p, verdict, reason, mailbox), policy: stored.policy };
}

/** A stored repeat answers a spelling of the same mailbox; any other spelling is looked up again, free as a repeat. */
export function emailRepeats(stored: EmailResult, input: string): "stored" | "fresh" {
  const asked = parseAddress(extractAddress(input));
  const storedSpelling = parseAddress(stored.email);
  if (!asked || !storedSpelling || !stored.syntax_valid) return "stored";
  return mailboxKey(asked.local, asked.domain) === mailboxKey(storedSpelling.local, storedSpelling.domain)
    ? "stored"
    : "fresh";
}
