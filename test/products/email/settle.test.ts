import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import type { JobMessage } from "../../../src/queue";
import type { RecheckMessage } from "../../../src/products/email/settle";
import { createAccount, accountObject, lookupEmail, mailStats, rcptCount, type TestAccount } from "../../helpers";
import { deliveredAt, receivedAt, WebhookVerifier } from "../../webhook-receiver";
import { runDeclared } from "../../../src/lookups/service";
import { registeredProducts } from "../../../src/products/registry";
import { capturedQueue } from "../../contract/helpers";

const SECRET = "callback-secret-0123456789";

async function runRecheck(acct: TestAccount, email: string, attempt: 1 | 2, path: string) {
  const body: RecheckMessage = {
    type: "recheck",
    requestId: `req_${crypto.randomUUID().replaceAll("-", "")}`,
    accountId: acct.accountId,
    keyId: acct.keyId,
    dailyCreditCap: null,
    email,
    attempt,
    callbackUrl: `${env.RECEIVER_URL}${path}`,
    callbackSecret: SECRET,
    timeout: 5,
  };
  const ctx = createExecutionContext();
  const batch = createMessageBatch<JobMessage>("verification-jobs", [
    { id: "r1", timestamp: new Date(), attempts: 1, body },
  ]);
  await worker.queue(batch, env, ctx);
  expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["r1"]);
  return body.requestId;
}

const unique = (name: string) => `/ok/${name}-${crypto.randomUUID()}`;

describe("settling unverified answers", () => {
  it("answers meta.settling true when a callback was asked for and the answer is unverified", async () => {
    const acct = await createAccount({ pack: 5 });
    const callback = { callback_url: `${env.RECEIVER_URL}${unique("cb")}`, callback_secret: SECRET };
    const unverified = await lookupEmail(acct.key, { email: "settle1@greylist.example", ...callback });
    expect(unverified.body.meta).toMatchObject({ settling: true, credits_used: 0 });
    const deliverable = await lookupEmail(acct.key, { email: "alice@acme.example", ...callback });
    expect(deliverable.body.meta.settling).toBe(false);
    const plain = await lookupEmail(acct.key, { email: "settle2@greylist.example" });
    expect(plain.body.meta).not.toHaveProperty("settling");
  });

  it("posts email.settled with settled true when a re-check answers, billed like a fresh lookup", async () => {
    const acct = await createAccount({ pack: 5 });
    const path = unique("settled");
    const requestId = await runRecheck(acct, "alice@acme.example", 1, path);
    const [delivery] = await deliveredAt(path);
    expect(await new WebhookVerifier(SECRET).verify(delivery!.headers, delivery!.body)).toBe("ok");
    expect(JSON.parse(delivery!.body)).toMatchObject({
      event: "email.settled",
      request_id: requestId,
      settled: true,
      attempt: 1,
      data: { email: "alice@acme.example", deliverable: "deliverable" },
      meta: { credits_used: 1, credits_remaining: 4, cache_hit: false, fair_use_billed: false },
    });
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(4);
  });

  // The whole chain through the real queue (re-check delays shortened to 1 s by vitest.config.ts): the lookup, exactly
  // two re-checks (three RCPTs for the address in all), then one email.settled and nothing after it.
  async function followChain(address: string) {
    const acct = await createAccount({ pack: 5 });
    const path = unique("chain");
    const lookup = await lookupEmail(acct.key, {
      email: address,
      callback_url: `${env.RECEIVER_URL}${path}`,
      callback_secret: SECRET,
    });
    expect(lookup.body.meta).toMatchObject({ settling: true, credits_used: 0 });
    const [delivery] = await deliveredAt(path, 1, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await receivedAt(path)).toHaveLength(1);
    expect(rcptCount(await mailStats(), address)).toBe(3);
    expect(await new WebhookVerifier(SECRET).verify(delivery!.headers, delivery!.body)).toBe("ok");
    return { acct, requestId: lookup.body.meta.request_id, body: JSON.parse(delivery!.body) };
  }

  it("follows an answer that never settles: two re-checks, then one email.settled with settled false", {
    timeout: 40_000,
  }, async () => {
    const { requestId, body } = await followChain("chain1@greylist.example");
    expect(body).toMatchObject({
      event: "email.settled",
      request_id: requestId,
      settled: false,
      attempt: 2,
      data: { reason: "unverified" },
      meta: { credits_used: 0 },
    });
  });

  it("follows an answer the second re-check settles: one email.settled with settled true, billed once", {
    timeout: 40_000,
  }, async () => {
    const { acct, requestId, body } = await followChain("chain2@settles.example");
    expect(body).toMatchObject({
      event: "email.settled",
      request_id: requestId,
      settled: true,
      attempt: 2,
      // The server takes any address once greylisting lets it through, the random one too (asked again with the
      // same local part, so greylisting learns it): a catch-all, never a confirmed mailbox.
      data: { deliverable: "risky", reason: "catch_all", catch_all: true, mailbox_exists: null },
      meta: { credits_used: 1, credits_remaining: 4 },
    });
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(4);
  });

  it(
    "does not run a re-check the balance cannot pay for: settled false, data null, stopped_reason " +
      "insufficient_credits",
    async () => {
      const acct = await createAccount({ pack: 0 });
      const path = unique("broke");
      await runRecheck(acct, "bob@acme.example", 1, path);
      const [delivery] = await deliveredAt(path);
      expect(JSON.parse(delivery!.body)).toMatchObject({
        event: "email.settled",
        settled: false,
        attempt: 1,
        data: null,
        meta: { credits_used: 0, stopped_reason: "insufficient_credits" },
      });
    },
  );
});

describe("the settling re-check of a request that fails", () => {
  /** The single email lookup as a surface runs it, with its deferred work kept for the test to start. */
  async function settlingLookup(email: string) {
    const acct = await createAccount({ pack: 5 });
    const { env: captured, sent } = capturedQueue();
    const owner = registeredProducts().find((p) => p.name === "email")!;
    const route = owner.lookups!.routes.find((r) => r.operationId === "verifyEmail")!;
    const deferred: { work: (() => Promise<unknown>) | null; ifFailed?: () => Promise<unknown> }[] = [];
    const json = { email, callback_url: `${env.RECEIVER_URL}${unique("failed")}`, callback_secret: SECRET };
    const outcome = await runDeclared({
      caller: {
        env: captured,
        principal: { kind: "secret", ...acct, userId: null, scopes: ["email"], dailyCreditCap: null },
        requestId: `req_${crypto.randomUUID().replaceAll("-", "")}`,
        defer: (work, ifFailed) => void deferred.push({ work, ...(ifFailed ? { ifFailed } : {}) }),
      },
      owner,
      route,
      request: { json, param: undefined, query: undefined, clientAddress: "" },
    });
    expect(outcome).toMatchObject({ ok: true, meta: { settling: true, credits_used: 0 } });
    const rechecks = () => sent.filter((m) => (m as { type?: string }).type === "recheck");
    expect(rechecks()).toEqual([]);
    return { deferred, rechecks };
  }

  it("is scheduled once the answer is out, and not at all when the request ended in an error", async () => {
    const failed = await settlingLookup("fails1@greylist.example");
    for (const d of failed.deferred) await (d.ifFailed ?? d.work)?.();
    expect(failed.rechecks()).toEqual([]);
    const answered = await settlingLookup("answers1@greylist.example");
    for (const d of answered.deferred) await d.work?.();
    expect(answered.rechecks()).toMatchObject([{ type: "recheck", attempt: 1, email: "answers1@greylist.example" }]);
  });
});
