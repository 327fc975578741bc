// One probe: the mailbox handshake for a list of addresses at one domain. MX hosts are tried in preference order until
// one holds a conversation; all addresses then share one SMTP transaction (a new one when the server limits recipients
// per transaction), a random address tests for catch-all unless the caller already knows, and the transaction ends
// with RSET. The session is then kept for the domain's next probe or ended with QUIT (session-pool.mjs).
// DATA is never sent.
import { randomInt } from "node:crypto";
import { enhancedStatus, rcptOutcome } from "./rcpt-reply.mjs";
import { connectSmtp, SmtpError } from "./smtp-session.mjs";
import { orderMxHosts, resolveTargets } from "./targets.mjs";

/** A server that keeps cutting the recipient list short is followed into at most this many sessions. */
const MAX_SESSIONS = 10;
const RANDOM_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/**
 * @typedef {import("./rcpt-reply.mjs").RcptOutcome | "timeout" | "refused_private"} Outcome
 * @typedef {{ outcome: Outcome, smtp_code: number | null, smtp_message: string | null, enhanced_status: string | null
 * }} Answer
 * @typedef {{ smtpPort: number, heloName: string, mailFrom: string, allowLoopback: boolean,
 *   resolver: import("./targets.mjs").HostResolver, connect?: typeof import("node:net").connect,
 *   connectTimeoutMs?: number, sessionPool: import("./session-pool.mjs").SessionPool }} ProbeOptions
 */

/**
 * Runs the handshake for one validated request (see request-schema.mjs) and returns the response body.
 * @param {{ domain: string, mx_hosts: { host: string, preference: number }[], addresses: string[], timeout_ms: number,
 * catch_all_probe: boolean }} request
 * @param {ProbeOptions} options
 */
export async function probe(request, options) {
  const deadline = Date.now() + request.timeout_ms;
  const catchAllProbe = request.catch_all_probe ? `${randomLocalPart()}@${request.domain}` : null;
  const recipients = [...new Set(request.addresses), ...(catchAllProbe ? [catchAllProbe] : [])];
  const { targets, refused } = await resolveTargets(orderMxHosts(request.mx_hosts), {
    resolver: options.resolver,
    allowLoopback: options.allowLoopback,
    deadline,
  });

  let mxHost = null;
  let answers = new Map();
  let fallback = answer(refused > 0 ? "refused_private" : Date.now() >= deadline ? "timeout" : "unavailable");
  for (const target of targets) {
    const conversation = await converse(target, recipients, { ...options, deadline, domain: request.domain });
    mxHost = target.host;
    answers = conversation.answers;
    fallback = conversation.error ? answerForFailure(conversation.error) : fallback;
    const heardRecipients = answers.size > 0 || conversation.error === null;
    if (heardRecipients || conversation.error.kind === "timeout") break;
  }

  return {
    mx_host: mxHost,
    catch_all: catchAllProbe ? catchAllFrom(answers.get(catchAllProbe)) : null,
    checked_at: new Date().toISOString(),
    results: request.addresses.map((address) => ({ address, ...(answers.get(address) ?? fallback) })),
  };
}

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
 * Whether a RCPT reply means "no more recipients in this transaction" rather than anything about the mailbox
 * (RFC 5321 4.5.3.1.10: 452, or 552 from older servers; enhanced status 4.5.3 / 5.5.3).
 * @param {{ code: number, message: string }} reply
 */
export function isTooManyRecipients({ code, message }) {
  if (code !== 452 && code !== 552 && !(code >= 400 && code < 500)) return false;
  if (/\b[45]\.5\.3\b/.test(message) || /too many (recipients|rcpt)|recipient limit/i.test(message)) return true;
  return code === 452 && !/\b4\.2\.2\b/.test(message);
}

/** A 16-character local part from a CSPRNG, for the catch-all test. */
export function randomLocalPart() {
  return Array.from({ length: 16 }, () => RANDOM_ALPHABET[randomInt(RANDOM_ALPHABET.length)]).join("");
}

/**
 * One MX address: as many transactions as the server's recipient limit needs, each in a session of the domain's pool
 * (a kept one, or a new one). Returns the answers heard and, when the conversation broke off, why.
 */
async function converse(target, recipients, options) {
  const answers = new Map();
  const key = `${options.domain.toLowerCase()}|${target.ip}`;
  let pending = recipients;
  for (let transactions = 1; pending.length > 0; transactions += 1) {
    let kept;
    try {
      kept = await options.sessionPool.acquire(key, options.deadline);
    } catch (error) {
      return { answers, error: asSmtpError(error) };
    }
    let session = null;
    let clean = false;
    try {
      session = await openTransaction(target, kept, options);
      pending = await sendRecipients(session, pending, answers, transactions < MAX_SESSIONS);
      clean = await session.reset();
    } catch (error) {
      session?.close();
      return { answers, error: asSmtpError(error) };
    } finally {
      options.sessionPool.release(key, session, { clean });
    }
  }
  return { answers, error: null };
}

/**
 * A session ready for RCPT: `kept` (a session of the domain's pool) when it takes MAIL FROM, else a new connection
 * (greeting, EHLO, or HELO when EHLO is refused with 5xx, and MAIL FROM).
 */
async function openTransaction(target, kept, options) {
  const { smtpPort, heloName, mailFrom, deadline, connect, connectTimeoutMs } = options;
  if (kept) {
    kept.setDeadline(deadline);
    // A kept session the server has since dropped or refuses is not the MX's failure: a new connection decides.
    if ((await kept.command(`MAIL FROM:<${mailFrom}>`).catch(() => null))?.code === 250) {
      kept.transactions += 1;
      return kept;
    }
    kept.close();
  }
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
    session.close();
    throw error;
  }
}

/** RCPT for each recipient in order; returns those left for a new session when the server stops taking more. */
async function sendRecipients(session, recipients, answers, mayReconnect) {
  for (const [index, recipient] of recipients.entries()) {
    const reply = await session.command(`RCPT TO:<${recipient}>`);
    if (index > 0 && mayReconnect && isTooManyRecipients(reply)) return recipients.slice(index);
    answers.set(recipient, answerForRcpt(reply));
  }
  return [];
}

function expect(reply, code, step) {
  if (reply.code !== code) throw new SmtpError("refused", `${step} answered ${reply.code}`, reply);
}

function asSmtpError(error) {
  return error instanceof SmtpError ? error : new SmtpError("connection", String(error?.message ?? error));
}

function answerForFailure(error) {
  if (error.kind === "timeout") return answer("timeout");
  return answer("unavailable", error.reply);
}

function answer(outcome, reply = null) {
  return {
    outcome,
    smtp_code: reply?.code ?? null,
    smtp_message: reply?.message ?? null,
    enhanced_status: reply ? enhancedStatus(reply) : null,
  };
}

function catchAllFrom(probeAnswer) {
  if (probeAnswer?.outcome === "accepted") return true;
  if (probeAnswer?.outcome === "no_mailbox") return false;
  return null;
}
