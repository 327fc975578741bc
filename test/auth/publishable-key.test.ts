import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { publishableFields, publishableKey } from "../../src/auth/publishable-key";
import { onError } from "../../src/http/error-handler";
import { ok } from "../../src/http/envelope";
import { requestId } from "../../src/http/request-id";
import { jsonBody } from "../../src/http/validation";
import type { AppEnv } from "../../src/types";
import { SITEVERIFY_SECRET } from "../fixtures/constants";
import { admin, BASE, createAccount, type Envelope } from "../helpers";

/** A browser endpoint as products mount it: validate the body, then the publishable-key checks. */
const browserApp = new Hono<AppEnv>();
browserApp.use("*", requestId());
browserApp.post(
  "/lookup",
  jsonBody(z.object({ ...publishableFields, email: z.string().max(254) })),
  publishableKey(),
  (c) => ok(c, { principal: c.var.principal }),
);
browserApp.onError(onError);

async function lookup(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await browserApp.request(
    `${BASE}/lookup`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify({ email: "a@b.c", ...body }),
    },
    env,
  );
  return {
    status: response.status,
    body: (await response.json()) as Envelope<{ principal: { kind: string; accountId: string } }>,
  };
}

async function publishable(options: { verified?: boolean; challenge?: boolean; domains?: string[] } = {}) {
  const acct = await createAccount({ verified: options.verified ?? true });
  const created = await admin<{ id: string; key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
    user_id: acct.userId,
    allowed_domains: options.domains ?? ["localhost", "*.example.com"],
    ...(options.challenge ? { challenge: { site_key: "0x4AAAAAAA-site", secret: SITEVERIFY_SECRET } } : {}),
  });
  return { ...acct, pk: created.key, pkId: created.id };
}

const origin = (value: string) => ({ Origin: value });

describe("publishable keys", () => {
  it("accepts the key from an allowed Origin, including subdomains of a wildcard entry", async () => {
    const { pk, accountId } = await publishable();
    expect(pk).toMatch(/^pk_live_/);
    for (const o of ["http://localhost:3000", "https://shop.example.com"]) {
      const { status, body } = await lookup({ key: pk }, origin(o));
      expect(status, o).toBe(200);
      expect(body.data.principal).toMatchObject({ kind: "publishable", accountId });
    }
  });

  it("works for an account whose email is not yet verified (browser endpoints are exempt)", async () => {
    const { pk } = await publishable({ verified: false });
    expect((await lookup({ key: pk }, origin("http://localhost"))).status).toBe(200);
  });

  it.each([
    ["unknown", `pk_live_${"z".repeat(32)}`],
    ["malformed", "pk_nope"],
  ])("answers an %s key with 401 INVALID_PUBLISHABLE_KEY", async (_label, key) => {
    const { status, body } = await lookup({ key }, origin("http://localhost"));
    expect(status).toBe(401);
    expect(body.error.code).toBe("INVALID_PUBLISHABLE_KEY");
  });

  it("answers a revoked key with 401 INVALID_PUBLISHABLE_KEY", async () => {
    const { pk, pkId } = await publishable();
    await admin("DELETE", `/keys/${pkId}`);
    expect((await lookup({ key: pk }, origin("http://localhost"))).body.error.code).toBe("INVALID_PUBLISHABLE_KEY");
  });

  it("answers a secret key in the key field with 422 (it must start with pk_)", async () => {
    const acct = await createAccount();
    const { status, body } = await lookup({ key: acct.key }, origin("http://localhost"));
    expect(status).toBe(422);
    expect(Object.keys(body.error.errors!)).toEqual(["key"]);
  });

  it.each([
    ["missing", undefined],
    ["another site", "https://evil.test"],
    ["a look-alike suffix", "https://notexample.com"],
    ["the literal null origin", "null"],
  ])("answers a %s Origin with 403 ORIGIN_NOT_ALLOWED", async (_label, value) => {
    const { pk } = await publishable();
    const { status, body } = await lookup({ key: pk }, value === undefined ? {} : origin(value));
    expect(status).toBe(403);
    expect(body.error.code).toBe("ORIGIN_NOT_ALLOWED");
  });

  it("requires a confirmed, single-use challenge token when the key has a challenge pair", async () => {
    const { pk } = await publishable({ challenge: true });
    const missing = await lookup({ key: pk }, origin("http://localhost"));
    expect(missing.status).toBe(403);
    expect(missing.body.error.code).toBe("CHALLENGE_FAILED");
    const rejected = await lookup({ key: pk, challenge_token: "fail-1" }, origin("http://localhost"));
    expect(rejected.body.error.code).toBe("CHALLENGE_FAILED");
    const token = `pass-${crypto.randomUUID()}`;
    expect((await lookup({ key: pk, challenge_token: token }, origin("http://localhost"))).status).toBe(200);
    const replay = await lookup({ key: pk, challenge_token: token }, origin("http://localhost"));
    expect(replay.status).toBe(403);
    expect(replay.body.error.code).toBe("CHALLENGE_FAILED");
  });

  it(
    "checks in order: INVALID_PUBLISHABLE_KEY, KEY_ACCOUNT_MISMATCH, ORIGIN_NOT_ALLOWED, RATE_LIMITED, " +
      "CHALLENGE_FAILED",
    async () => {
      const { pk, accountId, userId } = await publishable({ challenge: true });
      // Bad origin and no token: the origin answers first.
      expect((await lookup({ key: pk }, origin("https://evil.test"))).body.error.code).toBe("ORIGIN_NOT_ALLOWED");
      // 20 lookups a minute per visitor and key, then 429 even before the challenge is looked at.
      const visitor = { ...origin("http://localhost"), "CF-Connecting-IP": "198.51.100.20" };
      for (let i = 0; i < 20; i++)
        expect((await lookup({ key: pk }, visitor)).body.error.code).toBe("CHALLENGE_FAILED");
      expect((await lookup({ key: pk }, visitor)).body.error.code).toBe("RATE_LIMITED");
      // Holder removed: mismatch wins over a bad origin.
      await admin("DELETE", `/accounts/${accountId}/members/${userId}`);
      expect((await lookup({ key: pk }, origin("https://evil.test"))).body.error.code).toBe("KEY_ACCOUNT_MISMATCH");
    },
  );
});
