// What a RCPT TO reply says about the mailbox: RFC 3463 enhanced status codes first (the subject and detail name the
// cause), the RFC 5321 reply code when the server gives none. Only replies about the mailbox itself become answers;
// refusals of the prober (policy, system trouble, protocol) say nothing about it and become `unavailable`.

/**
 * @typedef {"accepted" | "no_mailbox" | "mailbox_full" | "mailbox_disabled" | "greylisted" | "blocked" | "unavailable"
 * } RcptOutcome
 */

/**
 * The RFC 3463 enhanced status code of a reply (`class.subject.detail`), or null. RFC 2034 puts it at the start of the
 * text (of every line); some servers append it instead (qmail: `(#5.1.1)`), so a code elsewhere is taken too, but only
 * one whose class matches the reply code's and that is not part of a longer dotted number (an IP address).
 * @param {{ code: number, message: string }} reply
 * @returns {string | null}
 */
export function enhancedStatus({ code, message }) {
  const klass = String(code)[0];
  if (klass !== "2" && klass !== "4" && klass !== "5") return null;
  const pattern = new RegExp(`(?<![\\d.])${klass}\\.(\\d{1,3})\\.(\\d{1,3})(?![\\d.]*\\d)`);
  const match = pattern.exec(message);
  return match ? `${klass}.${Number(match[1])}.${Number(match[2])}` : null;
}

/**
 * Replies aimed at the checking client, not the recipient. Postfix delays its HELO, sender and client checks to RCPT
 * (`smtpd_delay_reject = yes`, the default) and names the rejected thing ("Helo command rejected", "Sender address
 * rejected", "Client host rejected"); its anvil limits say "too many ... from <client>"; DNSBLs say "blocked using".
 */
const CLIENT_TEXT = new RegExp(
  [
    "helo command rejected",
    "client host rejected",
    "sender address rejected",
    "too (many|much) [a-z ]*from",
    "too many errors",
    "rate limit",
    "blocked using",
    "block ?listed",
    "black ?listed",
    "(bad|poor|low) reputation",
    "your (ip|host|address|server)",
    // Exchange's limit of connections per source address (MaxInboundConnectionPerSource), behind a 4.3.2 that
    // otherwise reads as trouble of the server: "The maximum number of concurrent connections has exceeded a limit"
    // (2007-2010), "... concurrent server connections has exceeded a per-source limit" (later releases).
    "per-source limit",
    "maximum number of concurrent connections has exceeded",
  ].join("|"),
  "i",
);
const GREYLIST_TEXT = /grey ?list|gray ?list|try again later/i;

/**
 * Whether a reply refuses the prober itself (its HELO, its sender, its address's reputation, a per-client rate or error
 * limit, a 421 for the client) rather than saying anything about the recipient: RFC 3463 x.1.7 / x.1.8 (the sender's
 * address), or the server's words (`CLIENT_TEXT`), never a greylisting reply.
 * @param {{ code: number, message: string }} reply
 */
export function refusesClient(reply) {
  if (reply.code < 400 || GREYLIST_TEXT.test(reply.message)) return false;
  const status = enhancedStatus(reply);
  if (status && /^[45]\.1\.[78]$/.test(status)) return true;
  return CLIENT_TEXT.test(reply.message);
}

/**
 * Temporary trouble of the server itself, the same for every client, in the words of real servers that give no
 * RFC 3463 code (or give one the server chose loosely): postscreen's "421 4.3.2 All server ports are busy" and "No
 * system resources", Exim's "421 <host>: Too many concurrent SMTP connections; please try again later"
 * (`smtp_accept_max`, every client) and "Too much load", Amazon SES's "421 Too many concurrent SMTP connections",
 * Gmail's "421 4.3.0 Temporary System Problem", Microsoft's "421 4.3.2 Service not available", Postfix's "Server
 * configuration problem". A per-client limit names the client ("... from <ip>", "from this IP address"): `CLIENT_TEXT`.
 */
const SERVER_TEXT = new RegExp(
  [
    "server ports are busy",
    "no system resources",
    "too many concurrent (smtp )?(connections|sessions)",
    "too much load",
    "(system|server) (is )?(busy|overloaded)",
    "server configuration (problem|error)",
    "service (is )?(currently |temporarily )?(not available|unavailable)",
    "temporary (system|local) (problem|failure)",
    "temporarily unavailable",
    "shutting down",
  ].join("|"),
  "i",
);

/**
 * Whom a refusal that ends or precedes the conversation is about: a `421` (the server closes the connection), or a
 * refused greeting, EHLO/HELO or MAIL FROM. `"client"`: it refuses the prober (RFC 3463 x.1.7 / x.1.8 our sender, any
 * x.7.x security or policy code, the words of `CLIENT_TEXT`, or a 5xx); `"server"`: a temporary trouble of the server
 * for everyone (4.3.x mail system, 4.4.x network, or `SERVER_TEXT`), which says nothing about us. A 4xx that says
 * neither stays a refusal of the prober: backing off is the careful reading of a server that hangs up unexplained.
 * @param {{ code: number, message: string }} reply
 * @returns {"client" | "server"}
 */
export function refusalOf(reply) {
  const status = enhancedStatus(reply);
  if ((status && /^[45]\.(1\.[78]|7\.\d+)$/.test(status)) || CLIENT_TEXT.test(reply.message)) return "client";
  if (reply.code < 400 || reply.code >= 500) return "client";
  if (status && /^4\.[34]\./.test(status)) return "server";
  return SERVER_TEXT.test(reply.message) ? "server" : "client";
}

/** Text that names a full or a disabled mailbox, for replies without an enhanced code ("550 Mailbox full"). */
const FULL_TEXT = /\b(mailbox (is )?full|over ?quota|quota exceeded|exceeded (its |the )?storage)/i;
const DISABLED_TEXT = /\b(account|mailbox|user) (is |has been )?(disabled|deactivated|inactive|suspended)\b/i;

/**
 * Reads one RCPT reply. A `421` (closing) is `blocked` or, for a server busy for everyone, `unavailable` (`refusalOf`).
 * A refusal of the prober itself (`refusesClient`) is `blocked`, whatever its code.
 * With an enhanced code (RFC 3463 section 3):
 * - x.1.x address status: 1 bad destination mailbox, 0 other address status, 2 bad destination system, 3 bad mailbox
 *   syntax, 6 moved with no forwarding address, 10 null MX (RFC 7505) say the address has no mailbox there; 4 ambiguous
 *   and 7/8 (the sender's address) do not;
 * - x.2.x mailbox status: 2 full (over quota) -> mailbox_full, 1 disabled -> mailbox_disabled; 0, 3 and 4 are about
 *   an existing mailbox or the message, not an answer;
 * - x.3.x mail system, x.4.x network and routing, x.5.x protocol, x.6.x content, x.7.x security and policy: nothing
 * about
 *   the mailbox.
 * A 4xx reply is temporary: full stays full (452 4.2.2), anything else is `greylisted` unless it names a system or
 * routing problem (4.3.x, 4.4.x: `unavailable`). Without an enhanced code (RFC 5321 4.2.3): 550, 551 and 553 no
 * mailbox, 552 exceeded storage (mailbox_full), other 5xx unavailable; 450 and 451 greylisted, 452 (insufficient system
 * storage) and 421 unavailable.
 * @param {{ code: number, message: string }} reply
 * @returns {RcptOutcome}
 */
export function rcptOutcome(reply) {
  const { code, message } = reply;
  const klass = Math.floor(code / 100);
  if (klass === 2) return "accepted";
  if (klass !== 4 && klass !== 5) return "unavailable";
  if (code === 421) return refusalOf(reply) === "client" ? "blocked" : "unavailable";
  if (refusesClient(reply)) return "blocked";
  const status = enhancedStatus(reply);
  if (status) {
    const [, subject, detail] = status.split(".").map(Number);
    if (subject === 2 && detail === 2) return "mailbox_full";
    if (klass === 4) return subject === 3 || subject === 4 ? "unavailable" : "greylisted";
    if (subject === 1) return [0, 1, 2, 3, 6, 10].includes(detail) ? "no_mailbox" : "unavailable";
    if (subject === 2 && detail === 1) return "mailbox_disabled";
    return "unavailable";
  }
  if (FULL_TEXT.test(message)) return "mailbox_full";
  if (klass === 5 && DISABLED_TEXT.test(message)) return "mailbox_disabled";
  if (code === 450 || code === 451) return "greylisted";
  if (code === 550 || code === 551 || code === 553) return "no_mailbox";
  if (code === 552) return "mailbox_full";
  return "unavailable";
}
