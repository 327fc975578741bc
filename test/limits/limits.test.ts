import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEY } from "../../src/auth/keys";
import { gcra } from "../../src/limits/gcra";
import { enforceLimit, LIMITS } from "../../src/limits/limiter";
import type { ApiError } from "../../src/http/errors";
import { bearer, call, createAccount } from "../helpers";

async function outcomes(n: number, run: () => Promise<void>) {
  const results = await Promise.allSettled(Array.from({ length: n }, run));
  return results.map((r) => (r.status === "fulfilled" ? "ok" : (r.reason as ApiError).code));
}

describe("limiter", () => {
  it("allows 5 requests per second per key, then 429 RATE_LIMITED with Retry-After", async () => {
    const acct = await createAccount();
    const responses = await Promise.all(Array.from({ length: 7 }, () => call("/api/v1/account", bearer(acct.key))));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(5);
    const limited = responses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(2);
    for (const r of limited) {
      expect(r.body.error.code).toBe("RATE_LIMITED");
      expect(Number(r.response.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    }
    // Another key of the same account has its own budget.
    const other = await createAccount();
    expect((await call("/api/v1/account", bearer(other.key))).status).toBe(200);
  });

  it("lets a key through again once its window has passed", async () => {
    const acct = await createAccount();
    await Promise.all(Array.from({ length: 5 }, () => call("/api/v1/account", bearer(acct.key))));
    expect((await call("/api/v1/account", bearer(acct.key))).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect((await call("/api/v1/account", bearer(acct.key))).status).toBe(200);
  });

  it("limits the sandbox key to 30 requests a minute per address", async () => {
    const headers = { "CF-Connecting-IP": "192.0.2.30" };
    const codes: string[] = [];
    for (let i = 0; i < 31; i++)
      codes.push((await call("/api/v1/account", bearer(SANDBOX_KEY, headers))).body.error.code);
    expect(codes.slice(0, 30).every((c) => c === "SANDBOX_ENDPOINT_NOT_ALLOWED")).toBe(true);
    const last = await call("/api/v1/account", bearer(SANDBOX_KEY, headers));
    expect(last.status).toBe(429);
    expect(last.body.error.code).toBe("RATE_LIMITED");
    expect(Number(last.response.headers.get("Retry-After"))).toBeGreaterThan(0);
    // A different address still has its budget.
    const elsewhere = await call("/api/v1/account", bearer(SANDBOX_KEY, { "CF-Connecting-IP": "192.0.2.31" }));
    expect(elsewhere.body.error.code).toBe("SANDBOX_ENDPOINT_NOT_ALLOWED");
  });

  it.each([
    ["browserVisitor", 20],
    ["redeliveryUser", 10],
    ["testWebhookKey", 10],
  ] as const)("holds %s to %i a minute per subject", async (name, limit) => {
    expect(LIMITS[name]).toMatchObject({ limit, windowMs: 60_000 });
    const subject = `subject-${name}-${Date.now()}`;
    const codes = await outcomes(limit + 2, () => enforceLimit(env, name, subject));
    expect(codes.filter((c) => c === "ok")).toHaveLength(limit);
    expect(codes.filter((c) => c === "RATE_LIMITED")).toHaveLength(2);
    await expect(enforceLimit(env, name, `${subject}-other`)).resolves.toBeUndefined();
  });
});

/** A small deterministic generator, so a jittered schedule is the same on every run. */
function jitter(seed: number) {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 2 - 1;
}

/**
 * Counts one request per instant (ms from 0) against a fresh bucket under the key's rule (the algorithm the limiter's
 * object runs with its own clock); returns how many were refused. The instants are the clock's, so the outcome is the
 * rule's, whatever the machine's speed.
 */
function refusedAt(at: number[]): number {
  const bucket = { tat: 0 };
  const { limit, windowMs } = LIMITS.key;
  return at.filter((t) => !gcra(bucket, limit, windowMs, 1_700_000_000_000 + t).allowed).length;
}

describe("the per-key limit admits a steady 5 per second", () => {
  it("never answers 429 to 10 keys each paced at 5 requests a second with ±90 ms of arrival jitter", () => {
    const limited = Array.from({ length: 10 }, (_, k) => {
      const noise = jitter(k + 1);
      return refusedAt(Array.from({ length: 15 }, (_, i) => i * 200 + 90 + Math.round(noise() * 90)));
    });
    expect(limited).toEqual(Array(10).fill(0));
  });

  it("still limits a key sending 10 a second: once its burst is spent, every other request is 429", () => {
    // 20 requests 100 ms apart: the burst of 5 and what refills meanwhile admit the first 9 (through 800 ms), then one
    // per 200 ms is admitted and the 6 between are refused.
    expect(refusedAt(Array.from({ length: 20 }, (_, i) => i * 100))).toBe(6);
  });

  it("is the rule the limiter's object enforces: 10 requests of one key at once are not all admitted", async () => {
    const subject = `burst-${crypto.randomUUID()}`;
    const codes = await outcomes(10, () => enforceLimit(env, "key", subject));
    expect(codes.filter((c) => c === "ok").length).toBeGreaterThanOrEqual(5);
    expect(codes.filter((c) => c === "RATE_LIMITED").length).toBeGreaterThanOrEqual(1);
  });
});
