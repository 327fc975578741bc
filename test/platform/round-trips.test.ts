import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { admin, bearer, call, createAccount, lookupEmail } from "../helpers";

/**
 * The storage round trips each request makes today, per request: the one place to update when the hot path changes.
 * `before`: made before the answer (the caller waits for them); `after`: once the answer is decided (the request log's
 * write, waitUntil work).
 */
const EXPECTED = {
  /**
   * GET /api/v1/account with a key this isolate has not looked up yet: the key row, which carries the account's own
   * fields too, read through a read-replica session (src/auth/key-lookup.ts; the primary only for a hash the replica
   * does not know), then one call to the account's object that counts the key's rate limit and answers the snapshot
   * (DO, src/surfaces/api/account.ts); after the answer the request log's batch, sent on the JOBS queue
   * (src/http/request-log.ts; its consumer's D1 write is not the request's).
   */
  accountFirst: {
    before: { do: 1, d1_primary: 0, d1_replica: 1, queue: 0, r2: 0 },
    after: { do: 0, d1_primary: 0, d1_replica: 0, queue: 1, r2: 0 },
  },
  /** The same request again: the key row comes from the per-isolate key cache. */
  accountCached: {
    before: { do: 1, d1_primary: 0, d1_replica: 0, queue: 0, r2: 0 },
    after: { do: 0, d1_primary: 0, d1_replica: 0, queue: 1, r2: 0 },
  },
  /**
   * POST /api/v1/email, the first fresh paid lookup of a new account with a new key. DO: one call to the account's
   * object (`begin`: the rate limit, the value's repeat and suppression rows, the cap and the hold, claiming the value:
   * src/engines/walk/begin.ts). D1 replica: the key row, the account's email policy (once per account: its object did
   * not know the version yet, engines/policy/apply.ts) and the shared mailbox read (db/client.ts replicaReads). Nothing
   * on the D1 primary. After the answer: the settlement with the repeat marker and history (one call, walk/walk.ts),
   * teaching the object the policy version (once per account), the shared mailbox answers and the request log's
   * batch, each sent on the JOBS queue (products/email/store.ts, http/request-log.ts; their consumers' D1 writes are
   * not the request's).
   */
  emailFirst: {
    before: { do: 1, d1_primary: 0, d1_replica: 3, queue: 0, r2: 0 },
    after: { do: 2, d1_primary: 0, d1_replica: 0, queue: 2, r2: 0 },
  },
  /**
   * The next fresh lookup of that account: the key is cached and the policy version comes with the hold, so the one
   * call to the account's object is all before the product's own work; nothing touches the D1 primary before or after
   * the answer (the shared mailbox read is a replica read, its write a queue message).
   */
  emailFresh: {
    before: { do: 1, d1_primary: 0, d1_replica: 1, queue: 0, r2: 0 },
    after: { do: 1, d1_primary: 0, d1_replica: 0, queue: 2, r2: 0 },
  },
  /** A test address: no hold, so the balance read for `meta` counts the rate limit; nothing read from D1. */
  testAddress: {
    before: { do: 1, d1_primary: 0, d1_replica: 0, queue: 0, r2: 0 },
    after: { do: 0, d1_primary: 0, d1_replica: 0, queue: 1, r2: 0 },
  },
};

type Kinds = Record<"do" | "d1_primary" | "d1_replica" | "queue" | "r2", { mean: number; max: number }>;
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

/**
 * Waits until the request's record is stored by the queue's consumer (read straight from D1, so the wait adds no
 * request of its own to the figures): the request log's send, after the answer, is then counted.
 */
async function logged<T extends { response: Response }>(answer: T): Promise<T> {
  const id = answer.response.headers.get("X-Request-Id")!;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await env.DB.prepare("SELECT 1 FROM request_log WHERE request_id = ?").bind(id).first()) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`request ${id} was never recorded`);
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
    return {
      do: kinds.do.mean,
      d1_primary: kinds.d1_primary.mean,
      d1_replica: kinds.d1_replica.mean,
      queue: kinds.queue.mean,
      r2: kinds.r2.mean,
    };
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
    const { status } = await logged(await call("/api/v1/account", bearer(acct.key)));
    expect(status).toBe(200);
    const account = await routeFigures("GET /api/v1/account");
    expect(perRequest(account)).toEqual(EXPECTED.accountFirst);
    expect(account.samples).toBe(1);
    expect(account.total_ms.p50).toBeGreaterThanOrEqual(0);
    expect(account.product_ms).toEqual({ p50: 0, p90: 0 });
  });

  it("shows the key lookup cached on a second identical request", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    // Logged before the reset: its record's batch is written, so the next request's record starts a batch of its own.
    expect((await logged(await call("/api/v1/account", bearer(acct.key)))).status).toBe(200);
    await reset();
    expect((await logged(await call("/api/v1/account", bearer(acct.key)))).status).toBe(200);
    expect(perRequest(await routeFigures("GET /api/v1/account"))).toEqual(EXPECTED.accountCached);
  });

  it("keys figures by the matched route pattern, refusals included", async () => {
    await reset();
    const { status } = await call("/api/v1/account/requests/req_nope", bearer("sk_live_unknown"));
    expect(status).toBe(401);
    const { routes } = await figures();
    expect(routes.map((r) => r.route)).toEqual(["GET /api/v1/account/requests/:requestId"]);
  });

  it("counts fresh paid lookups and a test address, and times product work apart from the rest", async () => {
    const acct = await createAccount({ pack: 5 });
    await reset();
    const { status, body } = await logged(await lookupEmail(acct.key, { email: "alice@acme.example" }));
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    const lookup = await routeFigures("POST /api/v1/email");
    expect(perRequest(lookup)).toEqual(EXPECTED.emailFirst);
    expect(lookup.product_ms.p50).toBeGreaterThan(0);
    expect(lookup.total_ms.p50).toBeGreaterThanOrEqual(lookup.product_ms.p50!);
    expect(lookup.other_ms.p50).toBeCloseTo(lookup.total_ms.p50! - lookup.product_ms.p50!, 2);
    // The account's next fresh lookup and a test address: one call to the account's object before product work.
    await reset();
    expect((await logged(await lookupEmail(acct.key, { email: "bob@acme.example" }))).body.meta).toMatchObject({
      credits_used: 1,
    });
    expect(perRequest(await routeFigures("POST /api/v1/email"))).toEqual(EXPECTED.emailFresh);
    await reset();
    expect((await logged(await lookupEmail(acct.key, { email: "deliverable@service.test" }))).status).toBe(200);
    expect(perRequest(await routeFigures("POST /api/v1/email"))).toEqual(EXPECTED.testAddress);
  });

  it("asks the account's object nothing after a refused lookup's answer: nothing was settled to refund", async () => {
    const acct = await createAccount({ pack: 0 });
    await reset();
    const { status, body } = await logged(await lookupEmail(acct.key, { email: "refused@acme.example" }));
    expect(status).toBe(402);
    expect(body.error.code).toBe("INSUFFICIENT_CREDITS");
    expect(perRequest(await routeFigures("POST /api/v1/email")).after.do).toBe(0);
  });

  it("is for the operator only", async () => {
    const { status, body } = await call("/admin/v1/round-trips", bearer("sk_live_not_the_token"));
    expect(status).toBe(401);
    expect(body.error.code).toBe("UNAUTHENTICATED");
  });
});
