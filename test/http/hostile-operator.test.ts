import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/limits/limiter";
import { BASE } from "../helpers";

/**
 * The operator token had no guessing throttle (300 wrong guesses in 3 s, found by the second attack): wrong tokens are
 * limited per source address (docs/operations.md, "Operator API"), judged one at a time so guesses sent at once are
 * held to it too, and the right token never counts.
 */
const limit = LIMITS.operatorGuesses.limit;
let block = 0;
const source = () => `2001:db8:ad:${(++block + Math.floor(Math.random() * 0xfff)).toString(16)}::1`;

/** A directory search for nobody: 404 once the token is judged right, 401 wrong, 429 refused unjudged. */
const directory = (token: string, ip: string) =>
  SELF.fetch(`${BASE}/admin/v1/accounts?email=nobody@example.com`, {
    headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": ip },
  });

async function statuses(responses: Promise<Response>[]) {
  return Promise.all(
    responses.map(async (r) => {
      const response = await r;
      await response.body?.cancel();
      return response.status;
    }),
  );
}

describe("the operator token's guessing throttle", () => {
  it(`answers the ${limit + 1}th wrong token from one source 429, unjudged, even when right`, async () => {
    const ip = source();
    const wrong: number[] = [];
    for (let i = 0; i <= limit; i++) wrong.push(...(await statuses([directory(`guess-${i}`, ip)])));
    expect(wrong).toEqual([...Array(limit).fill(401), 429]);
    const over = await directory("guess-x", ip);
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
    expect(await statuses([directory(env.ADMIN_TOKEN, ip)])).toEqual([429]);
    // Another address of the same /64 is the same source; another /64 is not.
    expect(await statuses([directory(env.ADMIN_TOKEN, ip.replace(/::1$/, "::2"))])).toEqual([429]);
    expect(await statuses([directory(env.ADMIN_TOKEN, source())])).toEqual([404]);
  });

  it("holds guesses sent at once to the same budget", async () => {
    const ip = source();
    const answers = await statuses(Array.from({ length: 40 }, (_, i) => directory(`burst-${i}`, ip)));
    expect(answers.filter((s) => s === 401).length).toBe(limit);
    expect(answers.filter((s) => s === 429).length).toBe(40 - limit);
  });

  it("never counts the right token: many at once, then the whole budget of wrong ones is left", async () => {
    const ip = source();
    expect(new Set(await statuses(Array.from({ length: 30 }, () => directory(env.ADMIN_TOKEN, ip))))).toEqual(
      new Set([404]),
    );
    const wrong: number[] = [];
    for (let i = 0; i <= limit; i++) wrong.push(...(await statuses([directory(`after-${i}`, ip)])));
    expect(wrong).toEqual([...Array(limit).fill(401), 429]);
  });
});
