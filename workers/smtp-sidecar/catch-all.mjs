// The catch-all question of one probe at one domain and MX address: is the verdict remembered (mx-pacing.mjs, an
// hour), is another probe asking the random address right now, or must this probe ask it? Probes at the same domain
// and address at the same time ask one RCPT between them: at a small server every refused recipient counts towards
// fail2ban's jail (4 in 10 minutes), and four lookups each asking the same random address would spend it all at
// once. The one asking shares the server's reply to that RCPT, which every waiting probe would have got itself (the
// same random address, MX address, sender and HELO, at the same moment); a reply that never came (its deadline, a
// dropped connection, pacing) is its own circumstance, so a waiting probe then asks in its turn.
import { within } from "./mx-pacing.mjs";
import { randomLocalPart } from "./probe-replies.mjs";

/**
 * @typedef {import("./probe-replies.mjs").Answer} Answer
 * @typedef {import("./mx-pacing.mjs").CatchAllReply} CatchAllReply
 * @typedef {{ verdict: boolean | null, answer: Answer | null, ask: null, settle: null }
 *   | { verdict: null, answer: null, ask: string, settle: (reply: CatchAllReply) => void }} CatchAllTurn
 *   `ask`: the random local part this probe asks first, then reports with `settle`; otherwise `verdict` and `answer`
 *   are what the probe says of catch-all (`answer` null for a remembered verdict, which nobody asked now)
 */

/** No reply before the probe's deadline while it waited for another probe's question. */
const TIMED_OUT = Object.freeze({ outcome: "timeout", smtp_code: null, smtp_message: null, enhanced_status: null });

/**
 * This probe's part in the catch-all question of `domain` at `ip`, waiting (within `deadline`) while another probe
 * asks it.
 * @param {import("./mx-pacing.mjs").Pacer} pacer
 * @param {{ domain: string, ip: string, deadline: number }} at
 * @returns {Promise<CatchAllTurn>}
 */
export async function catchAllTurn(pacer, { domain, ip, deadline }) {
  for (;;) {
    const entry = pacer.catchAll(domain, ip, randomLocalPart);
    if (entry.verdict !== null) return { verdict: entry.verdict, answer: null, ask: null, settle: null };
    if (!entry.asking) return { verdict: null, answer: null, ask: entry.local, settle: pacer.askCatchAll(entry) };
    const reply = await within(entry.asking, deadline);
    if (!reply) return { verdict: null, answer: TIMED_OUT, ask: null, settle: null };
    if (reply.replied) return { verdict: reply.verdict, answer: reply.answer, ask: null, settle: null };
  }
}

/**
 * What the random address's answer says: catch-all (accepted), not (no such mailbox), or nothing (anything else).
 * @param {Answer | null | undefined} answer
 */
export function catchAllFrom(answer) {
  if (answer?.outcome === "accepted") return true;
  if (answer?.outcome === "no_mailbox") return false;
  return null;
}
