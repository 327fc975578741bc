// One MX address's part of a probe: the random catch-all address first (unless its verdict is known), then the
// recipients, in as many sessions and transactions as the server's limits need, read as a careful mail client reads
// them (docs/email.md, "Pacing"): a session ends with QUIT before Postfix's soft error limit; 452 4.5.3 (recipients
// per message) starts a new transaction on the same connection; a refusal of the prober (a 421 for the client,
// per-client limits, HELO, sender, reputation) stops every probe to the address for the back-off, a server busy for
// everyone only the probe at hand; refused recipients are paced per address so fail2ban's stock jail never counts
// five; nothing is dialled after the deadline.
import { answerForRcpt, isTooManyRecipients } from "./probe-replies.mjs";
import { isLargeProvider } from "./provider-pacing.mjs";
import { refusalOf } from "./rcpt-reply.mjs";
import { connectSmtp, SmtpError } from "./smtp-session.mjs";

/** A conversation that keeps needing new sessions (a server cutting every one short) is followed this far. */
const MAX_SESSIONS = 12;

/**
 * @typedef {import("./probe-replies.mjs").Answer} Answer
 * @typedef {{ answers: Map<string, Answer>, rest: Answer | null, heard: boolean }} Conversation
 *   `rest` answers every recipient without an answer of its own (the server's replies are in `answers`); `heard`: some
 *   RCPT was answered, so no other MX is tried.
 */

/**
 * @param {{ host: string, ip: string }} target
 * @param {string[]} recipients in order, the random address (when asked) first
 * @param {object} options the probe's options, with `deadline`, `domain`, `pacer`, `sessionPool`, and
 *   `onAnswer(recipient, answer)`, told each server reply as it comes (other probes wait for the catch-all test's)
 * @returns {Promise<Conversation>}
 */
export async function converse(target, recipients, options) {
  const { pacer, deadline } = options;
  const answers = new Map();
  const result = (rest) => ({ answers, rest, heard: answers.size > 0 });
  const blocked = pacer.blocked(target.ip);
  if (blocked) return result(blocked);
  pacer.setLarge(target.ip, isLargeProvider(target.host));
  const key = `${options.domain.toLowerCase()}|${target.ip}`;
  const queue = [...recipients];
  for (let sessions = 0; queue.length > 0 && sessions < MAX_SESSIONS; sessions += 1) {
    if (pacer.refusalsLeft(target.ip) <= 0) return result(deferred(pacer, target.ip));
    let kept;
    try {
      kept = await options.sessionPool.acquire(key, deadline);
    } catch (error) {
      return result(failure(error));
    }
    let session = null;
    let clean = false;
    try {
      // A probe that waited for its turn past the deadline answers without dialling.
      if (Date.now() >= deadline) return result(failure(new SmtpError("timeout", "deadline passed")));
      session = kept ? await reuse(kept, options) : null;
      if (!session) {
        session = await open(target, options);
        if (!session) return result(failure(new SmtpError("timeout", "no connection slot before the deadline")));
      }
      const stop = await sendRecipients(session, queue, { answers, pacer, ip: target.ip, options });
      if (stop) return result(stop);
      clean = session.failed ? false : await session.reset();
    } catch (error) {
      if (error instanceof SmtpError && error.kind === "refused" && error.reply) {
        // Refused before any recipient: a refusal of the prober backs the address off; a server busy for everyone
        // (421 4.3.2 All server ports are busy) is only this probe's `unavailable`, the next probe dials as usual.
        const outcome = refusalOf(error.reply) === "client" ? "blocked" : "unavailable";
        const answer = { ...answerForRcpt(error.reply), outcome };
        if (outcome === "blocked") pacer.block(target.ip, answer);
        return result(answer);
      }
      return result(failure(error));
    } finally {
      options.sessionPool.release(key, session, { clean });
    }
  }
  return result(queue.length > 0 ? failure(new SmtpError("connection", "the server kept cutting sessions")) : null);
}

/** A kept session, in a new transaction, or null when the server no longer takes it (not the MX's failure). */
async function reuse(kept, { mailFrom, deadline, pacer }) {
  kept.setDeadline(deadline);
  // The slot passes from the kept session to its successor: it is gone before a new connection is made.
  if (kept.errors >= pacer.limits.sessionErrors) {
    await kept.quit({ reset: false });
    return null;
  }
  if ((await kept.command(`MAIL FROM:<${mailFrom}>`).catch(() => null))?.code === 250) {
    kept.transactions += 1;
    return kept;
  }
  await kept.quit({ reset: false });
  return null;
}

/**
 * A new connection, at the time the address's connection rate allows (null when that is past the deadline: nothing
 * dialled): greeting, EHLO (HELO when EHLO is refused with 5xx), MAIL FROM. A refusal throws `refused` with the reply.
 */
async function open(target, options) {
  const { smtpPort, heloName, mailFrom, deadline, connect, connectTimeoutMs, pacer } = options;
  const at = pacer.bookConnect(target.ip, deadline);
  if (at === null) return null;
  if (at > Date.now()) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
  const session = await connectSmtp({ ip: target.ip, port: smtpPort, deadline, connect, connectTimeoutMs });
  try {
    expect(await session.readReply(), 220, "greeting");
    let hello = await session.command(`EHLO ${heloName}`);
    if (hello.code >= 500) hello = await session.command(`HELO ${heloName}`);
    expect(hello, 250, "EHLO/HELO");
    expect(await session.command(`MAIL FROM:<${mailFrom}>`), 250, "MAIL FROM");
    session.transactions += 1;
    return session;
  } catch (error) {
    // A greeting of 421/554 is followed by the server hanging up; otherwise say goodbye.
    session.quit({ reset: false });
    throw error;
  }
}

/**
 * RCPT for each queued recipient (answered ones leave the queue). Returns null when the queue is done or the session
 * must end (its error count near the server's soft limit: the caller opens another), or the answer for every recipient
 * left when the conversation must stop (the prober was refused: `blocked`; pacing: `deferred`).
 */
async function sendRecipients(session, queue, { answers, pacer, ip, options }) {
  let inTransaction = 0;
  while (queue.length > 0) {
    if (session.errors >= pacer.limits.sessionErrors) return null;
    const recipient = /** @type {string} */ (queue[0]);
    const reply = await askRecipient(session, recipient, { pacer, ip, deadline: options.deadline });
    if (!reply) return deferred(pacer, ip);
    if (reply.code === 421) {
      // The server is closing the connection: after a refusal of the prober, come back after the back-off; a server
      // busy for everyone answers this probe `unavailable` and leaves the address's state alone.
      const answer = answerForRcpt(reply);
      if (answer.outcome === "blocked") pacer.block(ip, answer);
      return answer;
    }
    if (inTransaction > 0 && isTooManyRecipients(reply)) {
      // Recipients per message (452 4.5.3): a new transaction on the same connection.
      if (!(await session.reset())) return null;
      const mail = await session.command(`MAIL FROM:<${options.mailFrom}>`);
      if (mail.code !== 250) return null;
      session.transactions += 1;
      inTransaction = 0;
      continue;
    }
    const answer = answerForRcpt(reply);
    queue.shift();
    answers.set(recipient, answer);
    options.onAnswer?.(recipient, answer);
    inTransaction += 1;
    if (answer.outcome === "blocked") {
      pacer.block(ip, answer);
      return answer;
    }
  }
  return null;
}

/**
 * RCPT for `recipient` with one refused recipient of the address's budget reserved while its reply is out, so that
 * lookups running at the same time never send more RCPTs than the budget has refusals: kept when the reply is a
 * refusal fail2ban counts, or when no reply came (our deadline, a dropped connection: the server may still have
 * refused it and logged the refusal fail2ban reads); given back otherwise (accepted, greylisted, a full mailbox).
 * Null when the budget has none left to reserve (before the deadline): not sent.
 */
async function askRecipient(session, recipient, { pacer, ip, deadline }) {
  const settle = await pacer.reserveRefusal(ip, deadline);
  if (!settle) return null;
  let reply = null;
  try {
    reply = await session.command(`RCPT TO:<${recipient}>`);
    return reply;
  } finally {
    settle(reply === null || (countsForFail2ban(reply.code) && answerForRcpt(reply).outcome !== "greylisted"));
  }
}

/**
 * Whether fail2ban's stock postfix filter can match a refusal with this code: its pattern takes `[45][50][04]` (400,
 * 404, 450, 454, 500, 504, 550, 554), so a full mailbox's 552 or 452 costs nothing there and is not paced; greylisting
 * (a 450 whose text the filter does not match) is left out by its outcome.
 */
const countsForFail2ban = (code) => /^[45][50][04]$/.test(String(code));

/** Recipients held back: asking them now would reach the address's refusal count; says when it has room again. */
function deferred(pacer, ip) {
  const at = new Date(pacer.refusalFreeAt(ip)).toISOString();
  return {
    outcome: "deferred",
    smtp_code: null,
    smtp_message: `not asked: the server's tolerance for refused recipients is spent until ${at}`,
    enhanced_status: null,
  };
}

function failure(error) {
  const e = error instanceof SmtpError ? error : new SmtpError("connection", String(error?.message ?? error));
  return {
    outcome: e.kind === "timeout" ? "timeout" : "unavailable",
    smtp_code: e.reply?.code ?? null,
    smtp_message: e.reply?.message ?? null,
    enhanced_status: null,
  };
}

function expect(reply, code, step) {
  if (reply.code !== code) throw new SmtpError("refused", `${step} answered ${reply.code}`, reply);
}
