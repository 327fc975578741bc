import { describe, expect, it } from "vitest";
import { admin, bearer, call, createAccount, lookupEmail } from "./helpers";

/**
 * The storage round trips each request makes today, per request: the one place to update when the hot path changes.
 * `before`: made before the answer (the caller waits for them); `after`: once the answer is decided (the request log's
 * write, waitUntil work).
 */
const EXPECTED = {
  /**
   * GET /api/v1/account with a key this isolate has not looked up yet: the key row (D1, src/db/keys.ts), the key's
   * rate limiter (DO, src/limits/limiter.ts), the account row (D1) and the credits snapshot (DO) (src/routes/account.ts);
   * after the answer the request log row (D1, src/http/request-log.ts).
   */
  accountFirst: { before: { do: 2, d1: 2, queue: 0, r2: 0 }, after: { do: 0, d1: 1, queue: 0, r2: 0 } },
  /** The same request again: the key row comes from the per-isolate key cache. */
  accountCached: { before: { do: 2, d1: 1, queue: 0, r2: 0 }, after: { do: 0, d1: 1, queue: 0, r2: 0 } },
  /**
   * POST /api/v1/email, a fresh paid lookup with a new key. DO: rate limiter, hold, settle (src/engines/walk/). D1: key
   * row; the account's repeats (walk/plan.ts); the product's shared mailbox read and write (products/email/store.ts,
   * inside product time); repeat markers and history/suppressions (one batch each, walk/walk.ts); the policy stamp
   * (engines/policy/apply.ts). After: the request log row.
   */
  emailFresh: { before: { do: 3, d1: 7, queue: 0, r2: 0 }, after: { do: 0, d1: 1, queue: 0, r2: 0 } },
};

type Kinds = Record<"do" | "d1" | "queue" | "r2", { mean: number; max: number }>;
type Percentiles = { p50: number | null; p90: number | null };
interface RouteFigures {
  route: string;
  requests: number;
  before_answer: Kinds;
  after_answer: Kinds;
  samples: number;
  total_ms: Percentiles;
  product_ms: Percentiles;
  other_ms: Percentiles;
}
interface Figures {
  since: string;
  sample_size: number;
  routes: RouteFigures[];
}

const figures = () => admin<Figures>("GET", "/round-trips");
const reset = () => admin<{ since: string }>("DELETE", "/round-trips");

async function routeFigures(route: string): Promise<RouteFigures> {
  const found = (await figures()).routes.find((r) => r.route === route);
  if (!found) throw new Error(`no figures for ${route}`);
  return found;
}

/** The counts of a route that served exactly one request since the reset. */
function perRequest(figures: RouteFigures) {
  expect(figures.requests).toBe(1);
  const counts = (kinds: Kinds) => {
    for (const { mean, max } of Object.values(kinds)) expect(max).toBe(mean);
    return { do: kinds.do.mean, d1: kinds.d1.mean, queue: kinds.queue.mean, r2: kinds.r2.mean };
  };
  return { before: counts(figures.before_answer), after: counts(figures.after_answer) };
}

describe("GET /admin/v1/round-trips", () => {
  it("starts empty after a reset, and reading or resetting is not counted", async () => {
    const { since } = await reset();
    await figures();
    const after = await figures();
    expect(after).toEqual({ since, sample_size: 2048, routes: [] });
  });

  it("counts what GET /api/v1/account makes before and after its answer", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    await reset();
    const { status } = await call("/api/v1/account", bearer(acct.key));
    expect(status).toBe(200);
    const account = await routeFigures("GET /api/v1/account");
    expect(perRequest(account)).toEqual(EXPECTED.accountFirst);
    expect(account.samples).toBe(1);
    expect(account.total_ms.p50).toBeGreaterThanOrEqual(0);
    expect(account.product_ms).toEqual({ p50: 0, p90: 0 });
  });

  it("shows the key lookup cached on a second identical request", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    expect((await call("/api/v1/account", bearer(acct.key))).status).toBe(200);
    await reset();
    expect((await call("/api/v1/account", bearer(acct.key))).status).toBe(200);
    expect(perRequest(await routeFigures("GET /api/v1/account"))).toEqual(EXPECTED.accountCached);
  });

  it("keys figures by the matched route pattern, refusals included", async () => {
    await reset();
    const { status } = await call("/api/v1/account/requests/req_nope", bearer("sk_live_unknown"));
    expect(status).toBe(401);
    const { routes } = await figures();
    expect(routes.map((r) => r.route)).toEqual(["GET /api/v1/account/requests/:requestId"]);
  });

  it("counts a fresh paid lookup and times its product work apart from the rest", async () => {
    const acct = await createAccount({ pack: 5 });
    await reset();
    const { status, body } = await lookupEmail(acct.key, { email: "alice@acme.example" });
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    const lookup = await routeFigures("POST /api/v1/email");
    expect(perRequest(lookup)).toEqual(EXPECTED.emailFresh);
    expect(lookup.product_ms.p50).toBeGreaterThan(0);
    expect(lookup.total_ms.p50).toBeGreaterThanOrEqual(lookup.product_ms.p50!);
    expect(lookup.other_ms.p50).toBeCloseTo(lookup.total_ms.p50! - lookup.product_ms.p50!, 2);
  });

  it("is for the operator only", async () => {
    const { status, body } = await call("/admin/v1/round-trips", bearer("sk_live_not_the_token"));
    expect(status).toBe(401);
    expect(body.error.code).toBe("UNAUTHENTICATED");
  });
});
