// What the sidecar remembers of each mail server address (shared by every domain hosted there), so it stays within what
// stock defences tolerate of one client (docs/email.md, "Pacing"):
// - refused recipients: fail2ban's stock postfix jail bans a client after 5 matching log lines in 10 minutes
//   (maxretry 5, findtime 10m, `mode = more`: unknown users, relay and client refusals), so at most 4 refused RCPTs
//   per MX address in any 10 minutes; every RCPT reserves one of them before it is sent (`reserveRefusal`), since any
//   recipient might be refused and lookups run at the same time: kept when the reply is a refusal, given back
//   otherwise. A recipient whose unit is held by RCPTs awaiting their reply waits for one to come back (within its
//   deadline); one that would need a fifth refusal is held back (`deferred`);
// - new connections: at most 5 in any minute per MX address, below the usual anvil hardening
//   (smtpd_client_connection_rate_limit 6 to 30 a minute), so a list finished in further sessions makes no storm;
// - a refusal of the prober (a 421 for the client, per-client limits, HELO, sender or reputation refusals): nothing is
//   dialled there for 10 minutes (`backoffMs`), and every probe meanwhile answers `blocked` with the server's words (a
//   server busy for everyone, rcpt-reply.mjs `refusalOf`, changes nothing here);
// - the catch-all answer: the random address's verdict per domain and MX address for an hour, so one unknown-user RCPT
//   serves every lookup at the domain; while no verdict came (greylisted, cut short) the same random address is asked
//   again, so a greylisting server that has since learnt it gives the verdict on the re-check; and while one probe
//   asks it, probes at the same domain and address wait for that reply (`askCatchAll`, catch-all.mjs) instead of
//   each spending a refused recipient on the same question;
// - a large provider's MX address (provider-pacing.mjs: Gmail, Microsoft, Yahoo ...) gets the provider limits instead:
//   100 refused RCPTs in the window and 30 new connections a minute (`providerRefusals`, `providerConnects`); it runs
//   no fail2ban, and its own throttling is said in words that back the address off like any refusal of the prober;
// - free uncertain answers per account: at most 30 an hour per account and MX address; past that the account's
//   probes there are answered with the server's last uncertain reply without asking (a server that greylists would
//   otherwise let anyone probe it at no cost).

export const PACING_DEFAULTS = Object.freeze({
  refusals: 4,
  refusalWindowMs: 600_000,
  providerRefusals: 100,
  providerConnects: 30,
  sessionErrors: 8,
  connects: 5,
  connectWindowMs: 60_000,
  backoffMs: 600_000,
  catchAllMs: 3_600_000,
  freeUncertain: 30,
  freeWindowMs: 3_600_000,
});

/**
 * @typedef {typeof PACING_DEFAULTS} PacingLimits
 * @typedef {{ outcome: string, smtp_code: number | null, smtp_message: string | null,
 *   enhanced_status: string | null }} Answer
 * @typedef {{ refusals: number[], reserved: number, givenBack: PromiseWithResolvers<void> | null, connects: number[],
 *   blockedUntil: number, blockAnswer: Answer | null, free: Map<string, { at: number[], last: Answer }>,
 *   large: boolean }} Host
 *   `reserved`: RCPTs sent (or about to be) whose reply is not in yet, each holding one refusal of the budget;
 *   `givenBack`: settles when the next of them settles, for the RCPTs waiting for a unit
 * @typedef {{ answer: Answer, replied: boolean, verdict: boolean | null }} CatchAllReply what the random address got:
 *   `replied` when the server answered its RCPT (a reply any probe asking then would have got), not when the probe
 *   was cut short (deadline, dropped connection, pacing), which is that probe's own circumstance
 * @typedef {{ local: string, verdict: boolean | null, at: number, asking: Promise<CatchAllReply> | null }} CatchAll
 *   `asking`: a probe is asking the random address now; settles with its reply
 */

/** Times within the last `windowMs`, oldest first (the list is trimmed in place). */
function recent(times, windowMs, now) {
  while (times.length > 0 && times[0] <= now - windowMs) times.shift();
  return times;
}

/** `promise`'s value, or null once `deadline` (ms since epoch) passes first. */
export async function within(promise, deadline) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), null);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** @param {Partial<PacingLimits>} [limits] */
export function createPacer(limits = {}) {
  const l = { ...PACING_DEFAULTS, ...limits };
  /** @type {Map<string, Host>} */
  const hosts = new Map();
  /** @type {Map<string, CatchAll>} */
  const catchAlls = new Map();
  let lastSweep = 0;
  const host = (ip) => {
    let found = hosts.get(ip);
    if (!found) {
      found = {
        refusals: [],
        reserved: 0,
        givenBack: null,
        connects: [],
        blockedUntil: 0,
        blockAnswer: null,
        free: new Map(),
        large: false,
      };
      hosts.set(ip, found);
    }
    return found;
  };

  // A provider's limits only ever loosen the general ones (a deployment or test that lifts those lifts these too).
  const refusalCap = (h) => (h.large ? Math.max(l.providerRefusals, l.refusals) : l.refusals);
  const connectCap = (h) => (h.large ? Math.max(l.providerConnects, l.connects) : l.connects);
  const refusalsLeft = (h, now) => refusalCap(h) - recent(h.refusals, l.refusalWindowMs, now).length;
  /** One unit of `h`'s budget, if one is free now: its `settle(refused)`. */
  const reserve = (h, now) => {
    if (refusalsLeft(h, now) - h.reserved <= 0) return null;
    h.reserved += 1;
    let settled = false;
    return (/** @type {boolean} */ refused) => {
      if (settled) return;
      settled = true;
      h.reserved -= 1;
      if (refused) h.refusals.push(Date.now());
      h.givenBack?.resolve();
      h.givenBack = null;
    };
  };

  return {
    limits: l,

    /** Marks `ip` as a large provider's MX address (or not): its refusal and connection limits follow. */
    setLarge: (ip, large) => void (host(ip).large = large),

    /**
     * Refused RCPTs the window still has room for at the address without reaching fail2ban's count (or the
     * provider's); RCPTs awaiting their reply hold some of them (`reserveRefusal`).
     */
    refusalsLeft: (ip, now = Date.now()) => refusalsLeft(host(ip), now),
    /**
     * Reserves one refused RCPT of the address's budget for a RCPT about to be sent: answers `settle(refused)`, to
     * call once its reply is in (a refusal fail2ban counts: kept, as a refusal at that time; anything else, or no
     * reply: given back), or null when none is left (the recipient is held back): the window's refusals fill the
     * budget, or `deadline` passed while the units were held by RCPTs awaiting their reply. Settling twice does
     * nothing.
     * @returns {Promise<((refused: boolean) => void) | null>}
     */
    async reserveRefusal(ip, deadline) {
      const h = host(ip);
      for (;;) {
        const settle = reserve(h, Date.now());
        if (settle) return settle;
        if (refusalsLeft(h, Date.now()) <= 0 || h.reserved === 0) return null;
        h.givenBack ??= Promise.withResolvers();
        if (
          (await within(
            h.givenBack.promise.then(() => true),
            deadline,
          )) === null
        )
          return null;
      }
    },
    /**
     * When the window has room for another refusal (ms since epoch), at the latest: each RCPT awaiting its reply is
     * taken as refused now (one given back makes room at once).
     */
    refusalFreeAt(ip, now = Date.now()) {
      const h = host(ip);
      const cap = refusalCap(h);
      const times = [...recent(h.refusals, l.refusalWindowMs, now), ...Array(h.reserved).fill(now)];
      return times.length < cap ? now : times[times.length - cap] + l.refusalWindowMs;
    },

    /**
     * Books a new connection to `ip` at the earliest time the connection rate allows, if that is before `deadline`:
     * answers the time to connect at, or null (nothing booked: the probe answers without connecting).
     */
    bookConnect(ip, deadline, now = Date.now()) {
      const h = host(ip);
      const cap = connectCap(h);
      const times = recent(h.connects, l.connectWindowMs, now);
      const at = times.length < cap ? now : times[times.length - cap] + l.connectWindowMs;
      if (at >= deadline) return null;
      times.push(at);
      return at;
    },

    /** The server refused the prober: nothing goes there until the back-off ends. */
    block(ip, answer, now = Date.now()) {
      const h = host(ip);
      h.blockedUntil = now + l.backoffMs;
      h.blockAnswer = answer;
    },
    /** The answer every probe gets while the address backs off, or null. */
    blocked(ip, now = Date.now()) {
      const h = host(ip);
      return h.blockedUntil > now ? h.blockAnswer : null;
    },

    /**
     * The catch-all state of `domain` at `ip`: a verdict younger than `catchAllMs`, or the random local part to ask
     * (the one asked before while no verdict came, so greylisting can learn it).
     * @returns {CatchAll}
     */
    catchAll(domain, ip, fresh, now = Date.now()) {
      const key = `${domain.toLowerCase()}|${ip}`;
      const found = catchAlls.get(key);
      // One being asked stays, however old, so its waiting probes and the next ones share the one reply.
      if (found && (found.asking || now - found.at < l.catchAllMs)) return found;
      const entry = { local: found?.verdict === null ? found.local : fresh(), verdict: null, at: now, asking: null };
      catchAlls.set(key, entry);
      return entry;
    },
    /**
     * Marks the random address of `entry` (from `catchAll`) as asked now: until `settle(reply)`, other probes wait for
     * that reply (`entry.asking`). A verdict in it is remembered before they wake, so none asks again; a reply without
     * one is kept nowhere. Settling twice does nothing.
     * @param {CatchAll} entry
     * @returns {(reply: CatchAllReply) => void}
     */
    askCatchAll(entry) {
      const flight = Promise.withResolvers();
      entry.asking = flight.promise;
      let settled = false;
      return (reply) => {
        if (settled) return;
        settled = true;
        if (reply.verdict !== null) Object.assign(entry, { verdict: reply.verdict, at: Date.now() });
        if (entry.asking === flight.promise) entry.asking = null;
        flight.resolve(reply);
      };
    },

    /** Free uncertain answers `account` may still get from `ip` this hour; its last such answer. */
    freeLeft(ip, account, now = Date.now()) {
      const entry = host(ip).free.get(account);
      const used = entry ? recent(entry.at, l.freeWindowMs, now).length : 0;
      return { left: l.freeUncertain - used, last: entry?.last ?? null };
    },
    noteFree(ip, account, answer, now = Date.now()) {
      const h = host(ip);
      const entry = h.free.get(account) ?? { at: [], last: answer };
      entry.at.push(now);
      entry.last = answer;
      h.free.set(account, entry);
    },

    /** Forgets what no longer limits anything, at most once a minute, so the maps stay small at little cost. */
    sweep(now = Date.now()) {
      if (now - lastSweep < 60_000) return;
      lastSweep = now;
      for (const [ip, h] of hosts) {
        for (const [account, f] of h.free) if (recent(f.at, l.freeWindowMs, now).length === 0) h.free.delete(account);
        // An address with a RCPT awaiting its reply stays: the refusal it may bring must count.
        const refusing = recent(h.refusals, l.refusalWindowMs, now).length > 0 || h.reserved > 0;
        const idle = !refusing && h.blockedUntil <= now;
        if (idle && recent(h.connects, l.connectWindowMs, now).length === 0 && h.free.size === 0) hosts.delete(ip);
      }
      for (const [key, c] of catchAlls) if (!c.asking && now - c.at >= l.catchAllMs) catchAlls.delete(key);
    },
  };
}

/** @typedef {ReturnType<typeof createPacer>} Pacer */
