// One probe: the mailbox handshake for a list of addresses at one domain. MX hosts are tried in preference order until
// one holds a conversation (converse.mjs): the random catch-all address first, unless its verdict for the domain and
// MX address is still remembered (mx-pacing.mjs) or another probe is asking it now (catch-all.mjs: this one waits for
// that reply), then the addresses, in as many sessions and transactions as the server's limits need, paced per MX
// address. DATA is never sent.
import { catchAllFrom, catchAllTurn } from "./catch-all.mjs";
import { converse } from "./converse.mjs";
import { enhancedStatus } from "./rcpt-reply.mjs";
import { orderMxHosts, resolveTargets } from "./targets.mjs";

/** Answers that leave the mailbox unknown for a reason the server gave: free for the account, so they are counted. */
const UNCERTAIN = new Set(["greylisted", "blocked"]);

/**
 * @typedef {import("./probe-replies.mjs").Answer} Answer
 * @typedef {{ smtpPort: number, heloName: string, mailFrom: string, allowLoopback: boolean,
 *   resolver: import("./targets.mjs").HostResolver, connect?: typeof import("node:net").connect,
 *   connectTimeoutMs?: number, sessionPool: import("./session-pool.mjs").SessionPool,
 *   pacer: import("./mx-pacing.mjs").Pacer }} ProbeOptions
 */

/**
 * Runs the handshake for one validated request (see request-schema.mjs) and returns the response body.
 * @param {{ domain: string, mx_hosts: { host: string, preference: number }[], addresses: string[], timeout_ms: number,
 * catch_all_probe: boolean, account?: string }} request
 * @param {ProbeOptions} options
 */
export async function probe(request, options) {
  const deadline = Date.now() + request.timeout_ms;
  const { pacer } = options;
  pacer.sweep();
  const addresses = [...new Set(request.addresses)];
  const { targets, refused } = await resolveTargets(orderMxHosts(request.mx_hosts), {
    resolver: options.resolver,
    allowLoopback: options.allowLoopback,
    deadline,
  });

  let mxHost = null;
  let answers = new Map();
  let rest = answer(refused > 0 ? "refused_private" : Date.now() >= deadline ? "timeout" : "unavailable");
  /** @type {{ verdict: boolean | null, probe: Answer | null }} */
  let catchAll = { verdict: null, probe: null };
  for (const target of targets) {
    mxHost = target.host;
    const spent = request.account ? freeSpent(pacer, target.ip, request.account) : null;
    if (spent) {
      answers = new Map();
      rest = spent;
      break;
    }
    const turn = request.catch_all_probe
      ? await catchAllTurn(pacer, { domain: request.domain, ip: target.ip, deadline })
      : null;
    if (turn && !turn.ask) catchAll = { verdict: turn.verdict, probe: turn.answer };
    if (Date.now() >= deadline) {
      // The deadline passed while another probe asked the random address: nothing is dialled.
      answers = new Map();
      rest = answer("timeout");
      break;
    }
    const random = turn?.ask ? `${turn.ask}@${request.domain}` : null;
    const recipients = random ? [random, ...addresses] : addresses;
    const settle = turn?.settle ?? null;
    // The probes waiting for the random address's reply get it as soon as it is in, not after the whole list.
    const onAnswer = (recipient, reply) => recipient === random && settle?.(shareable(reply, true));
    let conversation = null;
    try {
      conversation = await converse(target, recipients, { ...options, deadline, domain: request.domain, onAnswer });
    } finally {
      // A question cut short (or a conversation that threw) is settled as unanswered: the waiting probes ask again.
      settle?.(shareable(conversation?.rest ?? answer("unavailable"), false));
    }
    answers = conversation.answers;
    rest = conversation.rest ?? rest;
    if (random) {
      const probeAnswer = answers.get(random) ?? rest;
      catchAll = { verdict: catchAllFrom(probeAnswer), probe: probeAnswer };
    }
    if (request.account) countFree(pacer, { ip: target.ip, addresses, answers, catchAll }, request);
    const final = ["timeout", "deferred"].includes(rest.outcome);
    if (conversation.heard || final) break;
  }

  return {
    mx_host: mxHost,
    catch_all: catchAll.verdict,
    catch_all_answer: catchAll.probe,
    checked_at: new Date().toISOString(),
    results: request.addresses.map((address) => ({ address, ...(answers.get(address) ?? rest) })),
  };
}

/** The account's free uncertain answers at `ip` are spent: its last one, not asked again, or null. */
function freeSpent(pacer, ip, account) {
  const { left, last } = pacer.freeLeft(ip, account);
  if (left > 0 || !last) return null;
  const note = "not asked again: this account's free uncertain answers at this server are spent for the hour";
  return { ...last, smtp_message: `${note}; last reply: ${last.smtp_message ?? "none"}` };
}

/** Counts each answer that leaves the mailbox unknown although the server spoke (greylisted, blocked, or accepted
 * while the catch-all test got no verdict). */
function countFree(pacer, { ip, addresses, answers, catchAll }, request) {
  for (const address of addresses) {
    const a = answers.get(address);
    if (!a) continue;
    const unclear = a.outcome === "accepted" && request.catch_all_probe && catchAll.verdict === null;
    if (UNCERTAIN.has(a.outcome) || unclear) pacer.noteFree(ip, request.account, unclear ? (catchAll.probe ?? a) : a);
  }
}

function answer(outcome, reply = null) {
  return {
    outcome,
    smtp_code: reply?.code ?? null,
    smtp_message: reply?.message ?? null,
    enhanced_status: reply ? enhancedStatus(reply) : null,
  };
}

/** The random address's answer as the probes waiting for it take it (mx-pacing.mjs `CatchAllReply`). */
function shareable(probeAnswer, replied) {
  return { answer: probeAnswer, replied, verdict: replied ? catchAllFrom(probeAnswer) : null };
}
