import { Hono, type Context } from "hono";
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { payerOf } from "../../../src/lookups/service";
import type { StopReason } from "../../../src/engines/credits/credits";
import { walk } from "../../../src/engines/walk/walk";
import { refusalOf } from "../../../src/lookups/service";
import { apiErrorOf } from "../../../src/surfaces/api/rest-act";
import { onError } from "../../../src/http/error-handler";
import { ok } from "../../../src/http/envelope";
import { requestId } from "../../../src/http/request-id";
import type { AppEnv } from "../../../src/types";
import { fakeProduct } from "../../contract/fake-product";
import { BASE, createAccount, accountObject, type Envelope } from "../../helpers";

const product = fakeProduct();

/** Throws the walk's refusal to start as the REST routes answer it (402, or 429 with `Retry-After`). */
function orRefuse<T extends { refused: StopReason | null }>(run: T): T {
  if (run.refused) throw apiErrorOf(refusalOf(run.refused));
  return run;
}
const OPTIONS = { refresh: false, maxAgeSeconds: null, honorSuppressions: false, extra: {} };

/** A single-lookup route as products write it: the paid walk for one value, its refusal as the HTTP error. */
function paidApp(accountId: string, keyId: string, dailyCreditCap: number | null, cost = 1) {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.use("*", async (c, next) => {
    c.set("principal", { kind: "secret", keyId, accountId, userId: null, scopes: [], dailyCreditCap });
    await next();
  });
  const lookUp = (value: string) => async (c: Context<AppEnv>) => {
    const run = orRefuse(
      await walk(product, {
        env,
        payer: payerOf(c.var.principal!),
        requestId: c.var.requestId,
        inputs: [value],
        options: OPTIONS,
      }),
    );
    return ok(
      c,
      { result: run.items[0]!.data },
      { credits_used: run.creditsUsed, credits_remaining: run.creditsRemaining },
    );
  };
  // Distinct values each time: a repeat within 7 days would be free.
  app.post("/paid", (c) => lookUp(`${cost ? "paid" : "free"}:${crypto.randomUUID()}`)(c));
  app.post("/fails", (c) => lookUp(`fail:${crypto.randomUUID()}`)(c));
  app.onError(onError);
  return (path: string) => app.request(`${BASE}${path}`, { method: "POST" }, env);
}

describe("the paid walk over HTTP: hold, look up, settle", () => {
  it(
    "charges exactly 10 of 50 concurrent paid requests on 10 credits; the rest answer 402 " + "INSUFFICIENT_CREDITS",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const request = paidApp(acct.accountId, acct.keyId, null);
      const responses = await Promise.all(Array.from({ length: 50 }, () => request("/paid")));
      const bodies = (await Promise.all(responses.map((r) => r.json()))) as Envelope[];
      expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
      const refused = bodies.filter((b) => !b.success);
      expect(refused).toHaveLength(40);
      expect(new Set(refused.map((b) => b.error.code))).toEqual(new Set(["INSUFFICIENT_CREDITS"]));
      expect(responses.filter((r) => r.status === 402)).toHaveLength(40);
      expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 0, reserved: 0 });
    },
  );

  it("answers 429 KEY_SPEND_CAP_REACHED once the key's daily cap is spent, before 402", async () => {
    const acct = await createAccount({ pack: 10 });
    const request = paidApp(acct.accountId, acct.keyId, 2);
    expect((await request("/paid")).status).toBe(200);
    expect((await request("/paid")).status).toBe(200);
    const capped = await request("/paid");
    expect(capped.status).toBe(429);
    expect(((await capped.json()) as Envelope).error.code).toBe("KEY_SPEND_CAP_REACHED");
    // Retry-After: the seconds left until the cap resets at 00:00 UTC.
    const midnight = new Date().setUTCHours(24, 0, 0, 0);
    const retryAfter = Number(capped.headers.get("Retry-After"));
    expect(Math.abs(retryAfter - Math.ceil((midnight - Date.now()) / 1000))).toBeLessThanOrEqual(5);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(8);
  });

  it("does not count free answers toward the cap", async () => {
    const acct = await createAccount({ pack: 10 });
    const free = paidApp(acct.accountId, acct.keyId, 1, 0);
    for (let i = 0; i < 3; i++) expect((await free("/paid")).status).toBe(200);
    expect((await paidApp(acct.accountId, acct.keyId, 1)("/paid")).status).toBe(200);
  });

  it("releases the reservation and charges nothing when the work fails", async () => {
    const acct = await createAccount({ pack: 1 });
    const request = paidApp(acct.accountId, acct.keyId, null);
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const failed = await request("/fails");
    log.mockRestore();
    expect(failed.status).toBe(500);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({
      pack_credits: 1,
      reserved: 0,
      available: 1,
    });
  });

  it("releases the first hold when the product's own say on a repeat throws (after the hold was made)", async () => {
    const acct = await createAccount({ pack: 2 });
    const payer = { accountId: acct.accountId, keyId: acct.keyId, dailyCreditCap: null };
    const value = `paid:${crypto.randomUUID()}`;
    const asked = { env, payer, inputs: [value], options: OPTIONS };
    expect((await walk(product, { ...asked, requestId: "req_repeat_first" })).creditsUsed).toBe(1);
    // A product that decides per repeat is held for; its decision runs once the stored rows are read.
    const broken = {
      ...product,
      repeats: () => {
        throw new Error("the product's repeat rule broke");
      },
    };
    await expect(walk(broken, { ...asked, requestId: "req_repeat_throws" })).rejects.toThrow("repeat rule broke");
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({
      pack_credits: 1,
      reserved: 0,
      available: 1,
    });
  });
});
