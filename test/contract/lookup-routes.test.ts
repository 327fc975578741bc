import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { LookupRoute } from "../../src/engines/lookup-declarations";
import { registeredProducts } from "../../src/products/registry";
import { VALID_REQUESTS } from "./helpers";
import { admin, anotherKey, bearer, call, createAccount, json, type TestAccount } from "../helpers";

/**
 * The HTTP contract of every lookup route every registered product declares (single, batch, browser, its own reads):
 * the key checks, 405 with `Allow`, the 422 envelope, CORS on browser endpoints and the billing meta. A product that
 * joins the registry is covered here without a line of its own, except one valid request per single and batch route.
 */
const routes = registeredProducts().flatMap((product) =>
  (product.lookups?.routes ?? []).map((route) => ({ product, route })),
);
const secretRoutes = routes.filter(({ route }) => route.kind !== "browser");
const browserRoutes = routes.filter(({ route }) => route.kind === "browser");
const label = ({ route }: { route: LookupRoute }) => `${route.method.toUpperCase()} ${route.path}`;

/** Path parameters as a value their schema refuses (too long or of the wrong shape). */
const badPath = (path: string) => path.replace(/:\w+/g, "x".repeat(300));
const somePath = (path: string) => path.replace(/:\w+/g, "1");
const url = (path: string) => `/api/v1${path}`;

/** One request each single and batch route answers (test/products/<name>/contract-samples.ts). */
const VALID = VALID_REQUESTS;

const SINGLE_META = ["credits_used", "credits_remaining", "cache_hit", "request_id"];
const BATCH_META = ["requested", "processed", "credits_used", "credits_remaining", "stopped_reason", "request_id"];

let account: TestAccount;
let publishable: string;
let accountOnly: string;

beforeAll(async () => {
  account = await createAccount({ pack: 100 });
  publishable = (
    await admin<{ key: string }>("POST", `/accounts/${account.accountId}/keys/publishable`, {
      allowed_domains: ["shop.example.com"],
    })
  ).key;
  accountOnly = (
    await admin<{ key: string }>("POST", `/accounts/${account.accountId}/keys/secret`, {
      user_id: account.userId,
      scopes: ["account"],
    })
  ).key;
});

const send = (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) =>
  call(url(path), method === "POST" ? json(init.body ?? {}, init.headers) : { method, headers: init.headers ?? {} });

describe.each(secretRoutes)("$route.method $route.path (secret key)", (entry) => {
  const { route } = entry;
  const method = route.method.toUpperCase();

  it("answers 401 UNAUTHENTICATED without a key", async () => {
    const { status, body } = await send(method, somePath(route.path));
    expect(status).toBe(401);
    expect(body.error.code).toBe("UNAUTHENTICATED");
  });

  it("answers 403 KEY_SCOPE_DENIED to a key without the product's scope", async () => {
    const { status, body } = await send(method, somePath(route.path), {
      headers: { Authorization: `Bearer ${accountOnly}` },
    });
    expect(status).toBe(403);
    expect(body.error.code).toBe("KEY_SCOPE_DENIED");
  });

  it("answers 401 UNAUTHENTICATED to a publishable key", async () => {
    const { status, body } = await send(method, somePath(route.path), {
      headers: { Authorization: `Bearer ${publishable}` },
    });
    expect(status).toBe(401);
    expect(body.error.code).toBe("UNAUTHENTICATED");
  });

  it("answers a wrong verb with 405 METHOD_NOT_ALLOWED and Allow, before asking for a key", async () => {
    const { response, status, body } = await call(url(somePath(route.path)), { method: "DELETE" });
    expect(status).toBe(405);
    expect(body.error.code).toBe("METHOD_NOT_ALLOWED");
    expect(response.headers.get("Allow")?.split(", ")).toContain(method);
  });
});

const validated = secretRoutes.filter(({ route }) => route.request.json || route.request.param || route.request.query);

describe.each(validated)("$route.method $route.path (validation)", ({ route }) => {
  it("answers an invalid request with the 422 envelope naming the fields", async () => {
    const key = await anotherKey(account);
    const { status, body } = await send(route.method.toUpperCase(), badPath(route.path), {
      body: { unknown: true },
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(status).toBe(422);
    expect(body.success).toBe(false);
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(Object.keys(body.error.errors ?? {}).length).toBeGreaterThan(0);
    expect(body.error.request_id).toMatch(/^req_/);
  });
});

describe.each(secretRoutes.filter(({ route }) => route.kind === "single" || route.kind === "batch"))(
  "$route.method $route.path (billing meta)",
  ({ route }) => {
    it("reports what it charged and what is left, in the meta its kind documents", async () => {
      const valid = VALID[label({ route })];
      expect(valid, "a valid request for this route in VALID").toBeDefined();
      const key = await anotherKey(account);
      const before = await call("/api/v1/account", bearer(key));
      const { status, body } = await send(route.method.toUpperCase(), valid!.path ?? route.path, {
        body: valid!.body,
        headers: { Authorization: `Bearer ${key}`, ...valid!.headers },
      });
      expect(status).toBe(200);
      expect(Object.keys(body.meta)).toEqual(expect.arrayContaining(route.kind === "batch" ? BATCH_META : SINGLE_META));
      const used = body.meta.credits_used as number;
      expect(Number.isInteger(used) && used >= 0).toBe(true);
      expect(body.meta.credits_remaining).toBe((before.body.meta.credits_remaining as number) - used);
      if (route.kind === "batch") {
        const results = (body.data as { results: { meta: Record<string, unknown> }[] }).results;
        expect(results.length).toBe(body.meta.processed);
        expect(results.reduce((sum, item) => sum + (item.meta.credits_used as number), 0)).toBe(used);
        for (const item of results)
          expect(Object.keys(item.meta)).toEqual(expect.arrayContaining(["credits_used", "cache_hit"]));
      }
    });
  },
);

describe.each(browserRoutes)("$route.method $route.path (browser endpoint)", ({ route }) => {
  const origin = "https://shop.example.com";

  it("answers the CORS preflight of a JSON POST from any page, without credentials", async () => {
    const response = await SELF.fetch(`https://api.test${url(route.path)}`, {
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    expect(response.headers.get("Access-Control-Allow-Methods")).toContain("POST");
    expect(response.headers.get("Access-Control-Allow-Credentials")).toBeNull();
  });

  it("lets the page read Retry-After and X-Request-Id of a refusal", async () => {
    const { response, status } = await call(url(route.path), json({ key: "pk_live_unknown" }, { Origin: origin }));
    expect(status).toBeGreaterThanOrEqual(400);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    const exposed = (response.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase().split(/\s*,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(["retry-after", "x-request-id"]));
  });

  it(
    "answers a missing publishable key, or a secret key in its place, with the 422 envelope naming " + "`key`",
    async () => {
      const missing = await call(url(route.path), json({}, { Origin: origin }));
      expect(missing.status).toBe(422);
      expect(missing.body.error.errors?.key).toBeDefined();
      const secret = await call(url(route.path), json({ key: account.key }, { Origin: origin }));
      expect(secret.status).toBe(422);
      expect(secret.body.error.errors?.key).toBeDefined();
    },
  );
});
