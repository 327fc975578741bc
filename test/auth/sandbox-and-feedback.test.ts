import { env } from "cloudflare:test";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { accountForFeedbackKey } from "../../src/auth/feedback-key";
import { SANDBOX_KEY } from "../../src/auth/keys";
import { secretKey } from "../../src/auth/secret-key";
import { database } from "../../src/db/client";
import { onError } from "../../src/http/error-handler";
import { ok } from "../../src/http/envelope";
import { requestId } from "../../src/http/request-id";
import type { AppEnv } from "../../src/types";
import { admin, BASE, bearer, call, createAccount, type Envelope } from "../helpers";

/**
 * A sandbox-enabled route: opted in. Values outside the samples are refused by the lookup service
 * (SANDBOX_VALUE_NOT_ALLOWED, tested on the products' own routes: email batch, IP billing, consistency).
 */
const lookupApp = new Hono<AppEnv>();
lookupApp.use("*", requestId());
lookupApp.get("/lookup/:value", secretKey({ scope: "email", sandbox: true }), (c) => {
  return ok(c, { value: c.req.param("value"), principal: c.var.principal?.kind });
});
lookupApp.onError(onError);

async function sandboxLookup(value: string, ip: string) {
  const response = await lookupApp.request(
    `${BASE}/lookup/${value}`,
    bearer(SANDBOX_KEY, { "CF-Connecting-IP": ip }),
    env,
  );
  return { status: response.status, body: (await response.json()) as Envelope };
}

describe("sandbox key", () => {
  afterEach(() => admin("PUT", "/sandbox", { enabled: true }));

  it("answers documented sample values on endpoints that opted in", async () => {
    const { status, body } = await sandboxLookup("deliverable@service.test", "192.0.2.1");
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ principal: "sandbox" });
  });

  it("answers endpoints that did not opt in with 403 SANDBOX_ENDPOINT_NOT_ALLOWED", async () => {
    const { status, body } = await call("/api/v1/account", bearer(SANDBOX_KEY, { "CF-Connecting-IP": "192.0.2.3" }));
    expect(status).toBe(403);
    expect(body.error.code).toBe("SANDBOX_ENDPOINT_NOT_ALLOWED");
  });

  it("answers 503 SANDBOX_UNAVAILABLE everywhere while the operator has it off", async () => {
    await admin("PUT", "/sandbox", { enabled: false });
    const lookup = await sandboxLookup("deliverable@service.test", "192.0.2.4");
    expect(lookup.status).toBe(503);
    expect(lookup.body.error.code).toBe("SANDBOX_UNAVAILABLE");
    expect((await call("/api/v1/account", bearer(SANDBOX_KEY))).body.error.code).toBe("SANDBOX_UNAVAILABLE");
    await admin("PUT", "/sandbox", { enabled: true });
    expect((await sandboxLookup("deliverable@service.test", "192.0.2.4")).status).toBe(200);
  });
});

describe("feedback keys", () => {
  const SENDER = "192.0.2.80";

  it("resolve to their account, and stop working once rotated", async () => {
    const acct = await createAccount();
    const first = await admin<{ feedback_key: string }>("POST", `/accounts/${acct.accountId}/feedback-key`);
    expect(first.feedback_key).toMatch(/^fb_[0-9A-Za-z]{40}$/);
    expect(await accountForFeedbackKey(database(env), first.feedback_key, SENDER)).toBe(acct.accountId);
    const second = await admin<{ feedback_key: string }>("POST", `/accounts/${acct.accountId}/feedback-key`);
    expect(await accountForFeedbackKey(database(env), second.feedback_key, SENDER)).toBe(acct.accountId);
    await expect(accountForFeedbackKey(database(env), first.feedback_key, SENDER)).rejects.toMatchObject({
      code: "INVALID_FEEDBACK_KEY",
      status: 401,
    });
  });

  it.each(["fb_unknownunknownunknownunknownunknownunk", "not-a-key", `sk_live_${"a".repeat(40)}`])(
    "reject %s with 401 INVALID_FEEDBACK_KEY",
    async (key) => {
      await expect(accountForFeedbackKey(database(env), key, SENDER)).rejects.toMatchObject({
        code: "INVALID_FEEDBACK_KEY",
      });
    },
  );
});
