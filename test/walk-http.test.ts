import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { withCredits } from "../src/billing/credits";
import { onError } from "../src/http/error-handler";
import { ok } from "../src/http/envelope";
import { requestId } from "../src/http/request-id";
import type { AppEnv } from "../src/types";
import { BASE, createAccount, creditsStub, type Envelope } from "./helpers";

/** A paid route as products will write it: reserve 1, answer, settle what the answer cost. */
function paidApp(accountId: string, keyId: string, dailyCreditCap: number | null, cost = 1) {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.use("*", async (c, next) => {
    c.set("principal", { kind: "secret", keyId, accountId, userId: null, scopes: [], dailyCreditCap });
    await next();
  });
  app.post("/paid", async (c) => {
    const { result, charged, remaining } = await withCredits(c, { amount: 1 }, async () => ({ result: "answer", credits: cost }));
    return ok(c, { result }, { credits_used: charged, credits_remaining: remaining });
  });
  app.post("/fails", async (c) => {
    await withCredits(c, { amount: 1 }, async () => {
      throw new Error("upstream broke");
    });
    return c.text("unreachable");
  });
  app.onError(onError);
  return (path: string) => app.request(`${BASE}${path}`, { method: "POST" }, env);
}

describe("withCredits: reserve, work, settle", () => {
  it("charges exactly 10 of 50 concurrent paid requests on 10 credits; the rest answer 402 INSUFFICIENT_CREDITS", async () => {
    const acct = await createAccount({ pack: 10 });
    const request = paidApp(acct.accountId, acct.keyId, null);
    const responses = await Promise.all(Array.from({ length: 50 }, () => request("/paid")));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as Envelope[];
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = bodies.filter((b) => !b.success);
    expect(refused).toHaveLength(40);
    expect(new Set(refused.map((b) => b.error.code))).toEqual(new Set(["INSUFFICIENT_CREDITS"]));
    expect(responses.filter((r) => r.status === 402)).toHaveLength(40);
    expect(await creditsStub(acct.accountId).snapshot()).toMatchObject({ pack_credits: 0, reserved: 0 });
  });

  it("answers 429 KEY_SPEND_CAP_REACHED once the key's daily cap is spent, before 402", async () => {
    const acct = await createAccount({ pack: 10 });
    const request = paidApp(acct.accountId, acct.keyId, 2);
    expect((await request("/paid")).status).toBe(200);
    expect((await request("/paid")).status).toBe(200);
    const capped = await request("/paid");
    expect(capped.status).toBe(429);
    expect(((await capped.json()) as Envelope).error.code).toBe("KEY_SPEND_CAP_REACHED");
    expect((await creditsStub(acct.accountId).snapshot()).pack_credits).toBe(8);
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
    expect(await creditsStub(acct.accountId).snapshot()).toMatchObject({ pack_credits: 1, reserved: 0, available: 1 });
  });
});
