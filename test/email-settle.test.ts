import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import type { JobMessage } from "../src/queue";
import type { RecheckMessage } from "../src/products/email/settle";
import { createAccount, creditsStub, lookupEmail, type TestAccount } from "./helpers";
import { deliveredAt, receivedAt, WebhookVerifier } from "./webhook-receiver";

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
  const batch = createMessageBatch<JobMessage>("verification-jobs", [{ id: "r1", timestamp: new Date(), attempts: 1, body }]);
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
    expect((await creditsStub(acct.accountId).snapshot()).pack_credits).toBe(4);
  });

  it("posts nothing after a first re-check that still cannot say, and settled false after the last one", async () => {
    const acct = await createAccount({ pack: 5 });
    const first = unique("first");
    await runRecheck(acct, "settle3@greylist.example", 1, first);
    const last = unique("last");
    await runRecheck(acct, "settle3@greylist.example", 2, last);
    const [delivery] = await deliveredAt(last);
    // The last re-check's callback has arrived through the outbox, so the first one would have too.
    expect(await receivedAt(first)).toHaveLength(0);
    expect(JSON.parse(delivery!.body)).toMatchObject({ settled: false, attempt: 2, data: { reason: "unverified" }, meta: { credits_used: 0 } });
  });

  it("does not run a re-check the balance cannot pay for: settled false, data null, stopped_reason insufficient_credits", async () => {
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
  });
});
