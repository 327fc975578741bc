// The SMTP line protocol, client side: one TCP connection, commands written one at a time, replies read back whole.
// Replies may be multi-line (`250-...` continued, `250 ...` last) and may arrive split across or merged within TCP
// reads; every wait is bounded by an absolute deadline so a silent server can never hold a probe open.
import net from "node:net";

const MAX_LINE_BYTES = 4096;
const MAX_REPLY_LINES = 200;
const MAX_QUEUED_REPLIES = 8;
const MAX_MESSAGE_CHARS = 1000;

/** A failed SMTP exchange. `kind` is `timeout`, `connection` (refused, reset, closed), `protocol` or `refused`. */
export class SmtpError extends Error {
  /**
   * @param {"timeout" | "connection" | "protocol" | "refused"} kind
   * @param {string} message
   * @param {SmtpReply | null} [reply] the server's reply when it refused us
   */
  constructor(kind, message, reply = null) {
    super(message);
    this.name = "SmtpError";
    this.kind = kind;
    this.reply = reply;
  }
}

/** @typedef {{ code: number, message: string }} SmtpReply `message` joins the text of every line with "\n". */

/**
 * Opens a TCP connection to an SMTP server. The greeting is not read here: call `readReply()` for it.
 * @param {{ ip: string, port: number, deadline: number, connectTimeoutMs?: number, connect?: typeof net.connect }}
 * options
 *   `deadline` is an absolute time (ms since epoch) after which every wait fails with kind `timeout`;
 *   `connectTimeoutMs` caps the TCP handshake alone (a `connection` failure), so one black-holed MX leaves time for the
 *   next.
 * @returns {Promise<SmtpSession>}
 */
export function connectSmtp({ ip, port, deadline, connectTimeoutMs = 10_000, connect = net.connect }) {
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new SmtpError("timeout", "deadline passed before connecting"));
    const socket = connect({ host: ip, port });
    const hitsDeadline = remaining <= connectTimeoutMs;
    const timer = setTimeout(
      () => {
        socket.destroy();
        reject(
          hitsDeadline
            ? new SmtpError("timeout", "connect timed out")
            : new SmtpError("connection", "connect timed out"),
        );
      },
      Math.min(remaining, connectTimeoutMs),
    );
    const onError = (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new SmtpError("connection", `connect failed: ${error.code ?? error.message}`));
    };
    socket.once("error", onError);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.off("error", onError);
      resolve(new SmtpSession(socket, deadline));
    });
  });
}

/** One SMTP connection. Commands must be sent one at a time (no pipelining): `await command()` before the next. */
export class SmtpSession {
  #socket;
  #deadline;
  #buffer = Buffer.alloc(0);
  #lines = [];
  #replies = [];
  #waiter = null;
  #failure = null;
  /** A reply did not come in time: whatever the server says next may answer an older command, so only QUIT is sent. */
  #desynced = false;
  /** When the connection was opened (ms), so a kept session is not reused past its age limit. */
  openedAt = Date.now();
  /** Transactions (MAIL FROM accepted) so far on this connection. */
  transactions = 0;
  /**
   * 4xx and 5xx replies so far on this connection: Postfix counts them per connection (RSET does not clear the count)
   * and slows every reply past `smtpd_soft_error_limit`, so the prober ends a session before that.
   */
  errors = 0;

  /** @param {net.Socket} socket a connected socket @param {number} deadline absolute ms */
  constructor(socket, deadline) {
    this.#socket = socket;
    this.#deadline = deadline;
    socket.setNoDelay(true);
    socket.on("data", (chunk) => this.#onData(chunk));
    socket.on("error", (error) =>
      this.#fail(new SmtpError("connection", `connection error: ${error.code ?? error.message}`)),
    );
    socket.on("close", () => this.#fail(new SmtpError("connection", "connection closed by the server")));
  }

  /**
   * The next complete reply from the server.
   * @param {number} [deadline] absolute ms; defaults to the session's deadline
   * @returns {Promise<SmtpReply>}
   */
  readReply(deadline = this.#deadline) {
    if (this.#replies.length > 0) return Promise.resolve(this.#replies.shift());
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      // A late reply is no failure of the connection: the session can still say QUIT, it just carries no more work.
      const timer = setTimeout(
        () => {
          this.#desynced = true;
          const waiter = this.#waiter;
          this.#waiter = null;
          waiter?.reject(new SmtpError("timeout", "no reply before the deadline"));
        },
        Math.max(0, deadline - Date.now()),
      );
      this.#waiter = {
        resolve: (reply) => (clearTimeout(timer), resolve(reply)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      };
    });
  }

  /**
   * Sends one command line (CRLF is added) and reads its reply.
   * @param {string} line must not contain CR, LF or NUL
   * @param {number} [deadline] absolute ms; defaults to the session's deadline
   */
  async command(line, deadline) {
    if (/[\r\n\0]/.test(line)) throw new SmtpError("protocol", "refusing to send a command containing CR, LF or NUL");
    if (this.#failure) throw this.#failure;
    if (this.#desynced) throw new SmtpError("timeout", "an earlier reply never came");
    this.#socket.write(`${line}\r\n`);
    const reply = await this.readReply(deadline);
    if (reply.code >= 400) this.errors += 1;
    return reply;
  }

  /** Whether the connection has failed or been closed, or can carry no more commands (a reply never came). */
  get failed() {
    return this.#failure !== null || this.#desynced;
  }

  /** Whether the server said something nobody asked for (a 421 before closing an idle session, say). */
  get hasPendingReplies() {
    return this.#replies.length > 0;
  }

  /** A kept session serves another probe, with that probe's deadline. @param {number} deadline absolute ms */
  setDeadline(deadline) {
    this.#deadline = deadline;
  }

  /** Ends the transaction with RSET, waiting at most `graceMs`; true when the session may carry another one. */
  async reset(graceMs = 1000) {
    try {
      return (await this.command("RSET", Math.min(this.#deadline, Date.now() + graceMs))).code === 250;
    } catch {
      return false;
    }
  }

  /**
   * Ends the session politely, waiting at most `graceMs` in all: RSET (unless the transaction was already reset, or a
   * reply is overdue), then QUIT, always, even after a slow reply or at the deadline; the socket is closed once the
   * server hangs up or the grace runs out. Servers log a client that leaves without QUIT as a lost connection.
   */
  async quit({ reset = true, graceMs = 1000 } = {}) {
    if (this.#failure) return;
    const deadline = Date.now() + graceMs;
    try {
      if (reset && !this.#desynced) await this.command("RSET", deadline);
    } catch {
      // Slow or refused: QUIT still follows.
    }
    if (this.#failure) return;
    const closed = new Promise((resolve) => this.#socket.once("close", resolve));
    this.#socket.write("QUIT\r\n");
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())))]);
    this.close();
  }

  /** Closes the connection at once. */
  close() {
    this.#fail(new SmtpError("connection", "session closed"));
  }

  #onData(chunk) {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    let newline;
    while (!this.#failure && (newline = this.#buffer.indexOf(0x0a)) !== -1) {
      const line = this.#buffer.subarray(0, newline).toString("utf8").replace(/\r$/, "");
      this.#buffer = this.#buffer.subarray(newline + 1);
      this.#onLine(line);
    }
    if (this.#buffer.length > MAX_LINE_BYTES) this.#fail(new SmtpError("protocol", "reply line too long"));
  }

  #onLine(line) {
    const match = /^(\d{3})(?:([ -])(.*))?$/.exec(line);
    if (!match) return this.#fail(new SmtpError("protocol", "malformed reply line"));
    if (this.#lines.length > 0 && match[1] !== this.#lines[0].code) {
      return this.#fail(new SmtpError("protocol", "reply code changed within a multi-line reply"));
    }
    if (this.#lines.length >= MAX_REPLY_LINES) return this.#fail(new SmtpError("protocol", "reply has too many lines"));
    this.#lines.push({ code: match[1], text: match[3] ?? "" });
    if (match[2] === "-") return;

    const reply = { code: Number(match[1]), message: cleanMessage(this.#lines.map(({ text }) => text).join("\n")) };
    this.#lines = [];
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = null;
      waiter.resolve(reply);
    } else if (this.#replies.push(reply) > MAX_QUEUED_REPLIES) {
      this.#fail(new SmtpError("protocol", "too many unsolicited replies"));
    }
  }

  #fail(error) {
    if (this.#failure) return;
    this.#failure = error;
    this.#socket.destroy();
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = null;
      waiter.reject(error);
    }
  }
}

/** Server text is untrusted: keep it printable and bounded before it is returned to callers. */
function cleanMessage(text) {
  return text
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, " ")
    .trim()
    .slice(0, MAX_MESSAGE_CHARS);
}
