import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEY } from "../../src/auth/keys";
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
 * Fires one request per scheduled instant (ms from now) at `enforceLimit("key", subject)`; returns how many were 429.
 */
async function paced(subject: string, at: number[]): Promise<number> {
  const start = Date.now();
  const outcomes = await Promise.all(
    at.map(async (t) => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + t - Date.now())));
      return enforceLimit(env, "key", subject).then(
        () => 0,
        () => 1,
      );
    }),
  );
  return outcomes.reduce<number>((sum, n) => sum + n, 0);
}

describe("the per-key limit admits a steady 5 per second", () => {
  it("never answers 429 to 10 keys each paced at 5 requests a second with ±90 ms of arrival jitter", async () => {
    const subjects = Array.from({ length: 10 }, (_, k) => `paced-${k}-${crypto.randomUUID()}`);
    const limited = await Promise.all(
      subjects.map((subject, k) => {
        const noise = jitter(k + 1);
        return paced(
          subject,
          Array.from({ length: 15 }, (_, i) => i * 200 + 90 + Math.round(noise() * 90)),
        );
      }),
    );
    expect(limited).toEqual(Array(10).fill(0));
  });

  it("still limits a key sending 10 a second: about half are 429", async () => {
    const limited = await paced(
      `fast-${crypto.randomUUID()}`,
      Array.from({ length: 20 }, (_, i) => i * 100),
    );
    // A burst of 5, then one every 200 ms: 5 + 10 of 20 over two seconds at most.
    expect(limited).toBeGreaterThanOrEqual(5);
    expect(limited).toBeLessThanOrEqual(12);
  });
});
