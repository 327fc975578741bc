// The driver of `npm run bench:account-object`: a Worker with one binding, the account's object (AccountObject, the
// real class), that calls it the way requests do, `calls` times with `concurrency` calls in flight, and answers how
// long that took. Run by bench/account-object.mjs under `wrangler dev` with a config of its own.
import type { AdmissionRequest } from "../../durable-objects/account-object";

export { AccountObject } from "../../durable-objects/account-object";

interface DriverEnv {
  ACCOUNTS: DurableObjectNamespace<import("../../durable-objects/account-object").AccountObject>;
  DB: D1Database;
}

/**
 * The old layout's list tables, empty: the object reads them once on its first use of its lists (its move from D1,
 * durable-objects/account/list-import.ts), and this bench's database has no migrations applied.
 */
const OLD_LISTS = [
  "repeats (account_id TEXT, product TEXT, key TEXT, result TEXT, key_version INTEGER, created_at INTEGER)",
  "suppressions (id INTEGER, account_id TEXT, product TEXT, key TEXT, reason TEXT, source TEXT, result TEXT, " +
    "key_version INTEGER, created_at INTEGER)",
  "history (id INTEGER, account_id TEXT, product TEXT, request_id TEXT, value TEXT, key TEXT, verdict TEXT, " +
    "reason TEXT, credits_used INTEGER, cache_hit INTEGER, suppressed INTEGER, created_at INTEGER)",
  "feedback (id INTEGER, account_id TEXT, product TEXT, key TEXT, outcome TEXT, kind TEXT, facet TEXT, detail TEXT, " +
    "source TEXT, created_at INTEGER)",
];

/** A key's 5 a second, over `keys` keys of the account taken in turn (as a busy account's many servers would). */
const admission = (n: number, keys: number, tag: string): AdmissionRequest => ({
  hits: [{ name: "key", subject: `key_${n % keys}`, limit: 5, windowMs: 1_000 }],
  request: {
    requestId: `req_${tag}_${n}`,
    accountId: "acct_bench",
    keyId: `key_${n % keys}`,
    method: "POST",
    path: "/api/v1/email",
  },
});

export default {
  async fetch(request: Request, env: DriverEnv): Promise<Response> {
    const url = new URL(request.url);
    const kind = url.searchParams.get("kind") ?? "free";
    const calls = Number(url.searchParams.get("calls") ?? 10_000);
    const concurrency = Number(url.searchParams.get("concurrency") ?? 16);
    const keys = Number(url.searchParams.get("keys") ?? 1_000);
    if (kind === "ping") return Response.json({ ok: true });
    const stub = env.ACCOUNTS.get(env.ACCOUNTS.idFromName(url.searchParams.get("account") ?? "bench"));
    if (kind === "setup") {
      await env.DB.batch(OLD_LISTS.map((table) => env.DB.prepare(`CREATE TABLE IF NOT EXISTS ${table}`)));
      await stub.setPlan("enterprise");
      await stub.addCredits({ bucket: "pack", amount: 1_000_000_000, note: "bench", requestId: null });
      return Response.json({ ok: true });
    }
    let next = 0;
    let refused = 0;
    let errored = 0;
    let roundTrips = 0;
    // Each round's values and request ids are its own: a round after the first finds no repeat of an earlier one.
    const tag = crypto.randomUUID().slice(0, 8);
    // free: a test value (rate limits + balance read, one call); paid: a fresh lookup as the walk makes it since
    // the account's lists live in its object: `enterBegin` (rate limits, the value's repeat and suppression rows, cap,
    // hold and claim) before the answer, then `settle` with the repeat marker and the history row after it.
    const one = async (n: number) => {
      if (kind === "free") {
        roundTrips++;
        const entered = await stub.enterBalance(admission(n, keys, tag), null);
        if (!entered.admitted) refused++;
        return;
      }
      roundTrips++;
      if (kind === "paid-hold") {
        // The same-run baseline: a paid lookup as it was before the lists moved into the object (hold, then a bare
        // settle), so the lists' cost reads as a ratio on this machine.
        const held = await stub.enterReserve(admission(n, keys, tag), {
          requestId: `req_${tag}_${n}`,
          amount: 1,
          keyId: `key_${n % keys}`,
        });
        if (!held.admitted || !held.value.ok) return void refused++;
        roundTrips++;
        const settled = await stub.settle(held.value.reservationId, { units: [1], usage: { billed_answers: 1 } });
        if (settled.charged !== 1) errored++;
        return;
      }
      const key = `user${n}-${tag}@bench.example`;
      const now = Date.now();
      const entered = await stub.enterBegin(
        admission(n, keys, tag),
        {
          requestId: `req_${tag}_${n}`,
          amount: 1,
          keyId: `key_${n % keys}`,
          claims: { product: "email", items: [{ key, units: 1 }] },
        },
        { product: "email", keys: [key], at: now, want: { repeats: true, suppressions: true } },
      );
      if (!entered.admitted || !entered.value.hold.ok) return void refused++;
      roundTrips++;
      const result = { email: key, deliverable: "yes" };
      const history = [
        {
          requestId: `req_${tag}_${n}`,
          value: key,
          key,
          verdict: "yes",
          reason: null,
          creditsUsed: 1,
          cacheHit: false,
          suppressed: false,
        },
      ];
      const settled = await stub.settle(entered.value.hold.reservationId, {
        units: [1],
        usage: { billed_answers: 1 },
        lists: { product: "email", write: { repeats: [{ key, result }], history }, at: now },
      });
      // A paid lookup that charged nothing measured something else (a repeat, a refusal): counted as an error.
      if (settled.charged !== 1) errored++;
    };
    const attempt = async (n: number) => {
      try {
        await one(n);
      } catch (err) {
        errored++;
        console.error(`account-object driver: call ${n} failed: ${err}`);
      }
    };
    const started = Date.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < calls) await attempt(next++);
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    return Response.json({ kind, calls, concurrency, keys, seconds, refused, errored, round_trips: roundTrips });
  },
};
