// SMTP sessions per destination (one domain at one MX address), kept between probes the way an MTA's connection cache
// keeps them, so a long list at one domain is checked in a few sessions rather than one per probe, and never in more at
// once than a mail server expects of one client. Postfix's defaults are the model: at most 20 sessions at once per
// destination (default_destination_concurrency_limit; a list itself keeps to 4, the Worker's calls in flight, near
// Postfix's starting 5, so the rest is room for single lookups at the same domain), an idle session kept 2 s
// (smtp_connection_cache_time_limit) and reused for 300 s at most (smtp_connection_reuse_time_limit), cached only
// while the destination has more work (smtp_connection_cache_on_demand). A session carries at most 50 transactions:
// servers count each RSET against their limit of "junk" commands (Postfix's smtpd_junk_command_limit is 100).
import { SmtpError } from "./smtp-session.mjs";

export const POOL_DEFAULTS = Object.freeze({ maxActive: 20, idleMs: 2000, maxAgeMs: 300_000, maxTransactions: 50 });

/**
 * @typedef {import("./smtp-session.mjs").SmtpSession} SmtpSession
 * @typedef {{ maxActive: number, idleMs: number, maxAgeMs: number, maxTransactions: number }} PoolLimits
 * @typedef {{ active: number, idle: { session: SmtpSession, timer: NodeJS.Timeout }[],
 *   waiters: { resume: () => void, timer: NodeJS.Timeout }[] }} Destination
 */

/**
 * @param {Partial<PoolLimits>} [limits]
 */
export function createSessionPool(limits = {}) {
  const { maxActive, idleMs, maxAgeMs, maxTransactions } = { ...POOL_DEFAULTS, ...limits };
  /** @type {Map<string, Destination>} */
  const destinations = new Map();
  let peak = 0;

  const destination = (key) => {
    let found = destinations.get(key);
    if (!found) destinations.set(key, (found = { active: 0, idle: [], waiters: [] }));
    return found;
  };
  const forget = (key, d) => {
    if (d.active === 0 && d.idle.length === 0 && d.waiters.length === 0) destinations.delete(key);
  };
  const reusable = (session) =>
    !session.failed &&
    !session.hasPendingReplies &&
    session.transactions < maxTransactions &&
    Date.now() - session.openedAt < maxAgeMs;

  return {
    /**
     * Takes one of the destination's slots, waiting in turn for one to free up until `deadline` (a `timeout`
     * SmtpError after it). Answers a kept session to reuse, or null: the caller connects; it `release`s either way.
     * @param {string} key
     * @param {number} deadline absolute ms
     * @returns {Promise<SmtpSession | null>}
     */
    async acquire(key, deadline) {
      const d = destination(key);
      if (d.active < maxActive) d.active += 1;
      else {
        // The slot is handed over by `release`, so `active` already counts this probe when it resumes.
        await new Promise((resolve, reject) => {
          const waiter = {
            resume: resolve,
            timer: setTimeout(
              () => {
                d.waiters.splice(d.waiters.indexOf(waiter), 1);
                forget(key, d);
                reject(new SmtpError("timeout", "no session to the mail server came free before the deadline"));
              },
              Math.max(0, deadline - Date.now()),
            ),
          };
          d.waiters.push(waiter);
        });
      }
      peak = Math.max(peak, d.active);
      while (d.idle.length > 0) {
        const { session, timer } = /** @type {Destination["idle"][number]} */ (d.idle.pop());
        clearTimeout(timer);
        if (reusable(session)) return session;
        session.close();
      }
      return null;
    },

    /**
     * Gives the slot back. `session` (reset and ready for a new transaction when `clean`) is kept for the next probe
     * when the destination has more work under way and it may still be used; otherwise it is ended with QUIT.
     * @param {string} key
     * @param {SmtpSession | null} session
     * @param {{ clean: boolean }} state
     */
    release(key, session, { clean }) {
      const d = destination(key);
      const busy = d.active > 1 || d.waiters.length > 0;
      if (session && clean && busy && reusable(session)) {
        const timer = setTimeout(() => {
          const index = d.idle.findIndex((parked) => parked.session === session);
          if (index !== -1) d.idle.splice(index, 1);
          forget(key, d);
          session.quit({ reset: false });
        }, idleMs);
        timer.unref();
        d.idle.push({ session, timer });
      } else if (session) {
        session.quit({ reset: !clean });
      }
      const waiter = d.waiters.shift();
      if (waiter) {
        clearTimeout(waiter.timer);
        waiter.resume();
      } else d.active -= 1;
      forget(key, d);
    },

    /** Ends every kept session (the sidecar is closing). */
    close() {
      for (const d of destinations.values()) {
        for (const { session, timer } of d.idle.splice(0)) {
          clearTimeout(timer);
          session.close();
        }
      }
    },

    /** What the pool holds now, and the most sessions one destination has had at once. */
    stats() {
      const all = [...destinations.values()];
      return {
        active: all.reduce((n, d) => n + d.active, 0),
        idle: all.reduce((n, d) => n + d.idle.length, 0),
        waiting: all.reduce((n, d) => n + d.waiters.length, 0),
        peak,
      };
    },
  };
}

/** @typedef {ReturnType<typeof createSessionPool>} SessionPool */
