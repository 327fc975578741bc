// Answers as the probe reports them: a RCPT reply read by rcpt-reply.mjs with the server's own words, the per-message
// recipient limit told apart from a per-client one, and the random local part of the catch-all test.
import { randomInt } from "node:crypto";
import { enhancedStatus, rcptOutcome, refusesClient } from "./rcpt-reply.mjs";

const RANDOM_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/**
 * @typedef {import("./rcpt-reply.mjs").RcptOutcome | "timeout" | "deferred" | "refused_private"} Outcome
 * @typedef {{ outcome: Outcome, smtp_code: number | null, smtp_message: string | null, enhanced_status: string | null
 * }} Answer
 */

/**
 * What a RCPT TO reply says about the mailbox (rcpt-reply.mjs), with the server's own words and enhanced status code.
 * @param {{ code: number, message: string }} reply
 * @returns {Answer}
 */
export function answerForRcpt(reply) {
  return {
    outcome: rcptOutcome(reply),
    smtp_code: reply.code,
    smtp_message: reply.message,
    enhanced_status: enhancedStatus(reply),
  };
}

/**
 * Whether a RCPT reply means "no more recipients in this transaction" (RFC 5321 4.5.3.1.10: 452, or 552 from older
 * servers; enhanced status 4.5.3 / 5.5.3) rather than anything about the mailbox. A per-client limit ("450 4.7.1 Error:
 * too many recipients from 192.0.2.1", Postfix's anvil) is not: it refuses the client (`refusesClient`), and a new
 * transaction or connection would only be refused again.
 * @param {{ code: number, message: string }} reply
 */
export function isTooManyRecipients(reply) {
  const { code, message } = reply;
  if (code !== 452 && code !== 552 && !(code >= 400 && code < 500)) return false;
  if (refusesClient(reply) || /\b[45]\.7\.\d+\b/.test(message)) return false;
  if (/\b[45]\.5\.3\b/.test(message) || /too many (recipients|rcpt)|recipient limit/i.test(message)) return true;
  return code === 452 && !/\b4\.2\.2\b/.test(message);
}

/** A 16-character local part from a CSPRNG, for the catch-all test. */
export function randomLocalPart() {
  return Array.from({ length: 16 }, () => RANDOM_ALPHABET[randomInt(RANDOM_ALPHABET.length)]).join("");
}
