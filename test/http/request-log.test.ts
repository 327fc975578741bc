import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newRequestId } from "../../src/http/request-id-format";
import { logRequest, REQUEST_LOG_MAX_RECORDS, writeRequestRecords } from "../../src/http/request-log";
import { insertRequestRecords } from "../../src/db/request-log";
import type { NewRequestRecord } from "../../src/db/request-log";
import type { JobMessage } from "../../src/queue";
import worker from "../../src/index";
import { assertDocumentedResponse } from "../openapi-check";
import { BASE, bearer, createAccount, json, type Envelope } from "../helpers";

/** The stored record, read from D1 itself (not through the API, whose own request would be logged too). */
const stored = (requestId: string) =>
  env.DB.prepare(
    "SELECT request_id, account_id, key_id, method, path, status, code, credits FROM request_log WHERE request_id = ?",
  )
    .bind(requestId)
    .first();
/** Records of one account (each test makes its own). */
const countFor = async (accountId: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM request_log WHERE account_id = ?")
    .bind(accountId)
    .first<{ n: number }>())!.n;

/**
 * One request as the runtime runs it: the response comes back, then the isolate may end as soon as the work handed to
 * `waitUntil` is done (the record's send on the queue); the queue's consumer stores it afterwards.
 */
async function answerThenEnd(path: string, init: RequestInit) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(`${BASE}${path}`, init), env, ctx);
  const body = (await response.json()) as Envelope;
  await waitOnExecutionContext(ctx);
  await assertDocumentedResponse(init.method ?? "GET", `${BASE}${path}`, response.status, body);
  return body;
}

const record = (accountId: string, overrides: Partial<NewRequestRecord> = {}): NewRequestRecord => ({
  requestId: newRequestId(),
  accountId,
  keyId: null,
  method: "GET",
  path: "/api/v1/account",
  status: 200,
  code: null,
  credits: 0,
  createdAt: Date.now(),
  ...overrides,
});

/** Waits (at most 10 s) for the queue's consumer: it writes a delivered batch about a second after the send. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}
const storedSoon = (requestId: string) =>
  until(
    () => stored(requestId),
    (row) => row !== null,
  );
const countSoon = (accountId: string, n: number) =>
  until(
    () => countFor(accountId),
    (count) => count >= n,
  );

/** `env` whose queue refuses every send. */
const refusingQueue = (): Env =>
  ({
    ...env,
    JOBS: {
      send: () => Promise.reject(new Error("queue unavailable")),
      sendBatch: () => Promise.reject(new Error("queue unavailable")),
    },
  }) as unknown as Env;

/**
 * Delivers one batch of request_log messages to the consumer, as the runtime does, and returns its acks and retries.
 */
async function deliver(bodies: { records: NewRequestRecord[] }[], attempt = 1) {
  const ctx = createExecutionContext();
  const batch = createMessageBatch<JobMessage>(
    "verification-jobs",
    bodies.map((b, i) => ({
      id: `log-${attempt}-${i}`,
      timestamp: new Date(),
      attempts: attempt,
      body: { type: "request_log", records: b.records } as JobMessage,
    })),
  );
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

describe("request records go on the queue after the response, and its consumer stores them", () => {
  it("stores a paid lookup's record, with its status and credits, once the consumer has run", async () => {
    const acct = await createAccount({ pack: 5 });
    const body = await answerThenEnd(
      "/api/v1/email",
      json({ email: "anything@catchall.example" }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(body.meta.credits_used).toBe(1);
    expect(await storedSoon(String(body.meta.request_id))).toEqual({
      request_id: body.meta.request_id,
      account_id: acct.accountId,
      key_id: acct.keyId,
      method: "POST",
      path: "/api/v1/email",
      status: 200,
      code: null,
      credits: 1,
    });
  });

  it("stores a refused request's record with its error code", async () => {
    const acct = await createAccount();
    const body = await answerThenEnd("/api/v1/account/ledger?page=0", bearer(acct.key));
    expect(await storedSoon(body.error.request_id)).toMatchObject({
      status: 422,
      code: "VALIDATION_FAILED",
      credits: 0,
      key_id: acct.keyId,
    });
  });

  it("stores every record of concurrent requests", async () => {
    const acct = await createAccount();
    const bodies = await Promise.all(
      Array.from({ length: 4 }, () => answerThenEnd("/api/v1/status/data", bearer(acct.key))),
    );
    expect(await countSoon(acct.accountId, 4)).toBe(4);
    for (const body of bodies)
      expect(await stored(String(body.meta.request_id))).toMatchObject({ status: 200, path: "/api/v1/status/data" });
  });

  it(
    "the request writes nothing to D1 itself: with its D1 " + "unusable, the record still arrives through the queue",
    async () => {
      const acct = await createAccount();
      const rec = record(acct.accountId, { status: 402, code: "INSUFFICIENT_CREDITS" });
      // The request's own D1 has no tables: a write there would fail. The consumer runs with the real bindings.
      await writeRequestRecords({ ...env, DB: env.EMPTY_DB }, [rec]);
      expect(await storedSoon(rec.requestId)).toMatchObject({ status: 402, code: "INSUFFICIENT_CREDITS" });
    },
  );
});

/** `env` whose queue records what it is sent (`hang`: and never answers). */
function recordingQueue(hang = false) {
  const sent: NewRequestRecord[][] = [];
  const send = (message: { records: NewRequestRecord[] }) => {
    sent.push(message.records);
    return hang ? new Promise<void>(() => {}) : Promise.resolve();
  };
  const queue = {
    send,
    sendBatch: (messages: { body: { records: NewRequestRecord[] } }[]) =>
      Promise.all(messages.map((m) => send(m.body))).then(() => undefined),
  };
  return { env: { ...env, JOBS: queue } as unknown as Env, sent };
}

describe("the per-isolate batch", () => {
  it(`sends records of requests finishing together in one message of up to ${REQUEST_LOG_MAX_RECORDS}`, async () => {
    const acct = await createAccount();
    const { env: queued, sent } = recordingQueue();
    const records = Array.from({ length: REQUEST_LOG_MAX_RECORDS + 20 }, () => record(acct.accountId));
    await Promise.all(records.map((r) => logRequest(queued, r)));
    const mine = sent.map((batch) => batch.filter((r) => r.accountId === acct.accountId).length).filter((n) => n > 0);
    expect(mine).toEqual([REQUEST_LOG_MAX_RECORDS, 20]);
  });

  it("hands each request a promise of its own, which no other request's write settles", async () => {
    // Workers warn "Promise will never complete" when a request waits on a promise another request settles, and the
    // waiting request may be cancelled with it: so no request's waitUntil may hold another's write.
    const acct = await createAccount();
    const stuck = recordingQueue(true);
    const first = logRequest(stuck.env, record(acct.accountId));
    const second = logRequest(recordingQueue().env, record(acct.accountId));
    expect(second).not.toBe(first);
    const settled = await Promise.race([
      second.then(() => "settled"),
      new Promise((resolve) => setTimeout(() => resolve("waiting on the first request's write"), 1_000)),
    ]);
    expect(settled).toBe("settled");
    expect(stuck.sent.flat().filter((r) => r.accountId === acct.accountId)).toHaveLength(2);
  });
});

describe("the consumer: one statement per delivered batch", () => {
  it("inserts every message's records of a batch and acknowledges a redelivery without duplicating them", async () => {
    const acct = await createAccount();
    const first = [
      record(acct.accountId, { credits: 1 }),
      record(acct.accountId, { status: 429, code: "RATE_LIMITED" }),
    ];
    const second = [record(acct.accountId, { status: 404, code: "NOT_FOUND" })];
    for (const attempt of [1, 2]) {
      const result = await deliver([{ records: first }, { records: second }], attempt);
      expect(result.explicitAcks.sort()).toEqual([`log-${attempt}-0`, `log-${attempt}-1`]);
      expect(result.retryMessages).toEqual([]);
    }
    expect(await countFor(acct.accountId)).toBe(3);
    expect(await stored(first[1]!.requestId)).toMatchObject({ status: 429, code: "RATE_LIMITED", credits: 0 });
    expect(await stored(second[0]!.requestId)).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it(
    "stores a batch's records all or none: one bad record retries " + "every message, and nothing is half-written",
    async () => {
      const acct = await createAccount();
      const good = [record(acct.accountId), record(acct.accountId)];
      const bad = [{ ...record(acct.accountId), status: null } as unknown as NewRequestRecord];
      const result = await deliver([{ records: good }, { records: bad }]);
      expect(result.explicitAcks).toEqual([]);
      expect(result.retryMessages.map((m) => m.msgId).sort()).toEqual(["log-1-0", "log-1-1"]);
      expect(await countFor(acct.accountId)).toBe(0);
    },
  );

  it("writes more records than D1's 100 bound parameters allow in one statement", async () => {
    const acct = await createAccount();
    const records = Array.from({ length: 150 }, () => record(acct.accountId));
    await insertRequestRecords(env.DB, records);
    expect(await countFor(acct.accountId)).toBe(150);
  });

  it("is idempotent on the request id: writing a record again changes nothing", async () => {
    const acct = await createAccount();
    const first = record(acct.accountId, { status: 200 });
    await insertRequestRecords(env.DB, [first]);
    await insertRequestRecords(env.DB, [{ ...first, status: 500, code: "SERVER_ERROR" }, record(acct.accountId)]);
    expect(await stored(first.requestId)).toMatchObject({ status: 200, code: null });
    expect(await countFor(acct.accountId)).toBe(2);
  });
});

describe("when the queue refuses the records, they go straight to D1", () => {
  it("a batch against a refusing queue is stored by the time its write settles", async () => {
    const acct = await createAccount();
    const records = [record(acct.accountId, { status: 402, code: "INSUFFICIENT_CREDITS" }), record(acct.accountId)];
    await writeRequestRecords(refusingQueue(), records);
    expect(await countFor(acct.accountId)).toBe(2);
    expect(await stored(records[0]!.requestId)).toMatchObject({ status: 402, code: "INSUFFICIENT_CREDITS" });
  });
});
