// The driver of `npm run bench:account-object`: a Worker with one binding, the account's object (AccountCredits, the
// real class), that calls it the way requests do, `calls` times with `concurrency` calls in flight, and answers how
// long that took. Run by bench/account-object.mjs under `wrangler dev` with a config of its own.
import type { AdmissionRequest } from "../../durable-objects/account-credits";

export { AccountCredits } from "../../durable-objects/account-credits";

interface DriverEnv {
  CREDITS: DurableObjectNamespace<import("../../durable-objects/account-credits").AccountCredits>;
}

/** A key's 5 a second, over `keys` keys of the account taken in turn (as a busy account's many servers would). */
const admission = (n: number, keys: number): AdmissionRequest => ({
  hits: [{ name: "key", subject: `key_${n % keys}`, limit: 5, windowMs: 1_000 }],
  request: { requestId: `req_${n}`, accountId: "acct_bench", keyId: `key_${n % keys}`, method: "POST", path: "/api/v1/email" },
});

export default {
  async fetch(request: Request, env: DriverEnv): Promise<Response> {
    const url = new URL(request.url);
    const kind = url.searchParams.get("kind") ?? "free";
    const calls = Number(url.searchParams.get("calls") ?? 10_000);
    const concurrency = Number(url.searchParams.get("concurrency") ?? 16);
    const keys = Number(url.searchParams.get("keys") ?? 1_000);
    if (kind === "ping") return Response.json({ ok: true });
    const stub = env.CREDITS.get(env.CREDITS.idFromName(url.searchParams.get("account") ?? "bench"));
    if (kind === "setup") {
      await stub.setPlan("enterprise");
      await stub.addCredits("pack", 1_000_000_000, "bench", null);
      return Response.json({ ok: true });
    }
    let next = 0;
    let refused = 0;
    let roundTrips = 0;
    // free: a test value or repeat (rate limits + balance read, one call); paid: a fresh lookup (the hold carrying
    // the rate limits, then the settle: two calls).
    const one = async (n: number) => {
      if (kind === "free") {
        roundTrips++;
        const entered = await stub.enterBalance(admission(n, keys), null);
        if (!entered.admitted) refused++;
        return;
      }
      roundTrips++;
      const entered = await stub.enterReserve(admission(n, keys), { requestId: `req_${n}`, amount: 1, keyId: `key_${n % keys}` });
      if (!entered.admitted || !entered.value.ok) return void refused++;
      roundTrips++;
      await stub.settle(entered.value.reservationId, { units: [1], usage: { billed_answers: 1 } });
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < calls) await one(next++);
    }));
    const seconds = (Date.now() - started) / 1000;
    return Response.json({ kind, calls, concurrency, keys, seconds, refused, round_trips: roundTrips });
  },
};
