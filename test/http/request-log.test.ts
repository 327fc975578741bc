import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newRequestId } from "../../src/http/request-id";
import { logRequest, REQUEST_LOG_MAX_RECORDS, writeRequestRecords } from "../../src/http/request-log";
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
 * `waitUntil` is done. Nothing else runs in between, so whatever is stored afterwards was stored by that request.
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

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

describe("request records are written after the response and not lost when the isolate ends", () => {
  it("stores a paid lookup's record, with its status and credits, by the time its waitUntil work is done", async () => {
    const acct = await createAccount({ pack: 5 });
    const body = await answerThenEnd(
      "/api/v1/email",
      json({ email: "anything@catchall.example" }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(body.meta.credits_used).toBe(1);
    expect(await stored(String(body.meta.request_id))).toEqual({
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
    expect(await stored(body.error.request_id)).toMatchObject({
      status: 422,
      code: "VALIDATION_FAILED",
      credits: 0,
      key_id: acct.keyId,
    });
  });

  it("stores every record of concurrent requests, each request waiting for the batch that holds its own", async () => {
    const acct = await createAccount();
    const bodies = await Promise.all(
      Array.from({ length: 4 }, () => answerThenEnd("/api/v1/status/data", bearer(acct.key))),
    );
    for (const body of bodies)
      expect(await stored(String(body.meta.request_id))).toMatchObject({ status: 200, path: "/api/v1/status/data" });
    expect(await countFor(acct.accountId)).toBe(4);
  });
});

describe("the per-isolate batch", () => {
  it(`writes up to ${REQUEST_LOG_MAX_RECORDS} records in one flush and starts the next batch after it`, async () => {
    const acct = await createAccount();
    const records = Array.from({ length: REQUEST_LOG_MAX_RECORDS + 20 }, () => record(acct.accountId));
    const flushes = records.map((r) => logRequest(env, r));
    expect(new Set(flushes.slice(0, REQUEST_LOG_MAX_RECORDS)).size).toBe(1);
    expect(new Set(flushes.slice(REQUEST_LOG_MAX_RECORDS)).size).toBe(1);
    expect(flushes[0]).not.toBe(flushes.at(-1));
    await flushes[0];
    expect(await countFor(acct.accountId)).toBe(REQUEST_LOG_MAX_RECORDS);
    await flushes.at(-1);
    expect(await countFor(acct.accountId)).toBe(records.length);
  });

  it("is idempotent on the request id: writing a record again changes nothing", async () => {
    const acct = await createAccount();
    const first = record(acct.accountId, { status: 200 });
    await writeRequestRecords(env, [first]);
    await writeRequestRecords(env, [{ ...first, status: 500, code: "SERVER_ERROR" }, record(acct.accountId)]);
    expect(await stored(first.requestId)).toMatchObject({ status: 200, code: null });
  });
});

describe("when D1 refuses the flush, the records go through the JOBS queue", () => {
  it("a flush against a failing D1 still ends with every record stored, through the queue consumer", async () => {
    const acct = await createAccount();
    const records = [
      record(acct.accountId, { status: 402, code: "INSUFFICIENT_CREDITS" }),
      record(acct.accountId, { credits: 1 }),
    ];
    await writeRequestRecords({ ...env, DB: env.EMPTY_DB }, records);
    expect(
      await until(
        () => countFor(acct.accountId),
        (n) => n === 2,
      ),
    ).toBe(2);
    expect(await stored(records[0]!.requestId)).toMatchObject({ status: 402, code: "INSUFFICIENT_CREDITS" });
  });

  it("the consumer inserts a message's records and acknowledges a redelivery without duplicating them", async () => {
    const acct = await createAccount();
    const records = [
      record(acct.accountId, { credits: 1 }),
      record(acct.accountId, { status: 429, code: "RATE_LIMITED" }),
    ];
    const body: JobMessage = { type: "request_log", records } as JobMessage;
    for (const attempt of [1, 2]) {
      const ctx = createExecutionContext();
      const batch = createMessageBatch<JobMessage>("verification-jobs", [
        { id: `log-${attempt}`, timestamp: new Date(), attempts: attempt, body },
      ]);
      await worker.queue(batch, env, ctx);
      expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual([`log-${attempt}`]);
    }
    expect(await countFor(acct.accountId)).toBe(2);
    expect(await stored(records[1]!.requestId)).toMatchObject({ status: 429, code: "RATE_LIMITED", credits: 0 });
  });
});
