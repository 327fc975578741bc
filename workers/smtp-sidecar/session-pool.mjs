// SMTP sessions per destination (one domain at one MX address), kept between probes the way an MTA's connection cache
// keeps them, so a long list at one domain is checked in a few sessions and single lookups one after another share
// one, and never in more at once than a mail server expects of one client. Postfix's defaults are the model: at most
// 5 sessions at once per destination (Postfix's initial destination concurrency; a list itself keeps to 4, the
// Worker's calls in flight) and at most 10 per MX address whatever the domains hosted there (common hardening of
// smtpd_client_connection_count_limit; ten domains at one address must not open 50 sockets), a session reused for
// 300 s at most (smtp_connection_reuse_time_limit). After its transaction a session is kept idle 5 s for the next
// probe (a sequence of single lookups, each its own request, reuses it instead of dialling each time). A session
// carries at most 50 transactions: servers count each RSET against their limit of "junk" commands (Postfix's
// smtpd_junk_command_limit is 100).
import { SmtpError } from "./smtp-session.mjs";

export const POOL_DEFAULTS = Object.freeze({
  maxActive: 5,
  maxPerAddress: 10,
  idleMs: 5000,
  maxAgeMs: 300_000,
  maxTransactions: 50,
});

/**
 * @typedef {import("./smtp-session.mjs").SmtpSession} SmtpSession
 * @typedef {{ maxActive: number, maxPerAddress: number, idleMs: number, maxAgeMs: number, maxTransactions: number
 * }} PoolLimits
 * @typedef {{ active: number, idle: { session: SmtpSession, timer: NodeJS.Timeout }[] }} Destination
 * @typedef {{ key: string, resume: (session: SmtpSession | null) => void, timer: NodeJS.Timeout }} Waiter
 */

/** The MX address of a destination key (`domain|ip`). */
const addressOf = (key) => key.slice(key.indexOf("|") + 1);

/**
 * A slot is held from `acquire` until the session is ended (after the server hung up, or the QUIT grace): a kept idle
 * session holds its slot too, since the server counts every open connection against its per-client limits.
 * @param {Partial<PoolLimits>} [limits]
 */
export function createSessionPool(limits = {}) {
  const { maxActive, maxPerAddress, idleMs, maxAgeMs, maxTransactions } = { ...POOL_DEFAULTS, ...limits };
  /** @type {Map<string, Destination>} */
  const destinations = new Map();
  /** Slots held per MX address, and the probes waiting for one there (any domain), in arrival order. */
  /** `ending`: its sessions whose QUIT is under way, each slot to be handed on (`wake`) once the server hung up. */
  /** @type {Map<string, { active: number, ending: number, waiters: Waiter[] }>} */
  const addresses = new Map();
  let peak = 0;
  let peakPerAddress = 0;

  const destination = (key) => {
    let found = destinations.get(key);
    if (!found) destinations.set(key, (found = { active: 0, idle: [] }));
    return found;
  };
  const address = (ip) => {
    let found = addresses.get(ip);
    if (!found) addresses.set(ip, (found = { active: 0, ending: 0, waiters: [] }));
    return found;
  };
  const forget = (key) => {
    const d = destinations.get(key);
    if (d && d.active === 0 && d.idle.length === 0) destinations.delete(key);
    const a = addresses.get(addressOf(key));
    if (a && a.active === 0 && a.waiters.length === 0) addresses.delete(addressOf(key));
  };
  const hasRoom = (key) => destination(key).active < maxActive && address(addressOf(key)).active < maxPerAddress;
  /** Whether the MX address's cap, not only their own destinations', keeps probes waiting there. */
  const addressFull = (ip) => address(ip).active >= maxPerAddress;
  const hold = (key) => {
    destination(key).active += 1;
    address(addressOf(key)).active += 1;
    peak = Math.max(peak, destination(key).active);
    peakPerAddress = Math.max(peakPerAddress, address(addressOf(key)).active);
  };
  const free = (key) => {
    destination(key).active -= 1;
    address(addressOf(key)).active -= 1;
    wake(addressOf(key));
    forget(key);
  };
  /** Ends `session` with QUIT and frees its slot once it is gone. */
  const end = (key, session, reset) => {
    address(addressOf(key)).ending += 1;
    return session.quit({ reset }).finally(() => {
      address(addressOf(key)).ending -= 1;
      free(key);
    });
  };
  const reusable = (session) =>
    !session.failed &&
    !session.hasPendingReplies &&
    session.transactions < maxTransactions &&
    Date.now() - session.openedAt < maxAgeMs;
  /**
   * The waiter at its MX address whose turn a freed clean session of `key` is, or -1 when it is none of `key`'s: the
   * oldest waiter first, so a domain's steady stream of probes cannot starve an earlier probe of another domain at the
   * full address. An older waiter of another domain goes first only when it needs a slot of the address: its own
   * sessions in use will not come to it (its domain's earlier waiters take them; a domain with none at the address
   * has nothing else to wait for), its domain has room for one more, and the slots already freeing at the address
   * (sessions ending) do not cover it, since those go to the oldest waiters.
   */
  const turnOf = (key) => {
    const a = address(addressOf(key));
    let freeing = a.ending;
    /** @type {Map<string, number>} */
    const seen = new Map();
    for (const [index, waiter] of a.waiters.entries()) {
      if (waiter.key === key) return index;
      const ahead = (seen.get(waiter.key) ?? 0) + 1;
      seen.set(waiter.key, ahead);
      const inUse = destinations.get(waiter.key)?.active ?? 0;
      if (inUse < maxActive && ahead > inUse && --freeing < 0) return -1;
    }
    return -1;
  };
  /** Hands freed room at `ip` to the waiters, in turn, whose own destination has room too. */
  function wake(ip) {
    const a = addresses.get(ip);
    if (!a) return;
    for (let i = 0; i < a.waiters.length && a.active < maxPerAddress; ) {
      const waiter = /** @type {Waiter} */ (a.waiters[i]);
      if (!hasRoom(waiter.key)) {
        i += 1;
        continue;
      }
      a.waiters.splice(i, 1);
      clearTimeout(waiter.timer);
      hold(waiter.key);
      waiter.resume(null);
    }
  }
  /** Idle sessions at `ip` give their slots up for a probe that waits there. */
  const evictIdle = (ip) => {
    for (const [key, d] of destinations) {
      if (addressOf(key) !== ip) continue;
      for (const { session, timer } of d.idle.splice(0)) {
        clearTimeout(timer);
        end(key, session, false);
      }
    }
  };

  return {
    /**
     * Takes a slot of the destination and of its MX address, waiting in turn for both until `deadline` (a `timeout`
     * SmtpError after it, and nothing dialled). Answers a kept session to reuse, or null: the caller connects; it
     * `release`s either way.
     * @param {string} key `domain|ip`
     * @param {number} deadline absolute ms
     * @returns {Promise<SmtpSession | null>}
     */
    async acquire(key, deadline) {
      const d = destination(key);
      while (d.idle.length > 0) {
        const { session, timer } = /** @type {Destination["idle"][number]} */ (d.idle.pop());
        clearTimeout(timer);
        // A kept session still holds its slot: it passes to this probe.
        if (reusable(session)) return session;
        end(key, session, false);
      }
      const a = address(addressOf(key));
      // Room is handed to the waiters as soon as it frees (`wake`), so whoever still waits lacks room of its own: a
      // probe with room at its destination and its address overtakes nobody. Queueing it behind a probe that waits
      // for its own domain's sessions would hold a free slot back.
      if (hasRoom(key)) {
        hold(key);
        return null;
      }
      const handed = new Promise((resolve, reject) => {
        /** @type {Waiter} */
        const waiter = {
          key,
          resume: resolve,
          timer: setTimeout(
            () => {
              a.waiters.splice(a.waiters.indexOf(waiter), 1);
              forget(key);
              reject(new SmtpError("timeout", "no session to the mail server came free before the deadline"));
            },
            Math.max(0, deadline - Date.now()),
          ),
        };
        a.waiters.push(waiter);
      });
      // Only the address's cap is helped by ending other domains' kept sessions; a full destination has none kept.
      if (addressFull(addressOf(key))) evictIdle(addressOf(key));
      return /** @type {Promise<SmtpSession | null>} */ (handed);
    },

    /**
     * Gives the slot back. `session` (reset and ready for a new transaction when `clean`) goes to a probe waiting for
     * the destination unless an older probe of another domain waits for room at the MX address (`turnOf`), or is kept
     * idle for the next one while it may still be used and no probe waits for room at the full MX address; otherwise
     * it is ended with QUIT, its slot freed once the server has hung up (and handed to the oldest waiter, `wake`).
     * @param {string} key
     * @param {SmtpSession | null} session
     * @param {{ clean: boolean }} state
     */
    release(key, session, { clean }) {
      if (!session) return free(key);
      if (!clean || !reusable(session)) return void end(key, session, !clean);
      const a = address(addressOf(key));
      const turn = turnOf(key);
      if (turn !== -1) {
        const [waiter] = a.waiters.splice(turn, 1);
        clearTimeout(/** @type {Waiter} */ (waiter).timer);
        return /** @type {Waiter} */ (waiter).resume(session);
      }
      if (a.waiters.length > 0 && addressFull(addressOf(key))) return void end(key, session, false);
      const d = destination(key);
      const timer = setTimeout(() => {
        const index = d.idle.findIndex((parked) => parked.session === session);
        if (index !== -1) d.idle.splice(index, 1);
        end(key, session, false);
      }, idleMs);
      timer.unref();
      d.idle.push({ session, timer });
    },

    /** Ends every kept session (the sidecar is closing) with QUIT. */
    close() {
      for (const [key, d] of destinations) {
        for (const { session, timer } of d.idle.splice(0)) {
          clearTimeout(timer);
          end(key, session, false);
        }
      }
    },

    /** Slots held now (kept sessions included), and the most one destination and one MX address have had at once. */
    stats() {
      const all = [...destinations.values()];
      return {
        active: all.reduce((n, d) => n + d.active, 0),
        idle: all.reduce((n, d) => n + d.idle.length, 0),
        waiting: [...addresses.values()].reduce((n, a) => n + a.waiters.length, 0),
        peak,
        peakPerAddress,
      };
    },
  };
}

/** @typedef {ReturnType<typeof createSessionPool>} SessionPool */
