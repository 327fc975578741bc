/**
 * The daily cron's retention sweep, driven through the Worker's `scheduled` handler: repeat markers past the 7-day
 * window, history past 90 days, shared mailbox answers past a week and the request log past 90 days go; fresher rows
 * stay. Repeats and history are checked for every product, since every product writes them.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { accountRows, createAccount, accountObject } from "../helpers";
import { DAY_MS, rand, SUBJECTS } from "./helpers";

const DAILY = "17 3 * * *";
const MINUTE = 60_000;

async function dailyCron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: DAILY, scheduledTime: Date.now() }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const count = async (sql: string, ...binds: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...binds)
    .first<{ n: number }>())!.n;

// What is left of the old D1 layout (rows not yet copied into an account's object) is swept by the cron as before.
describe.each(SUBJECTS)("daily retention of the old D1 layout: $label", ({ product }) => {
  it("deletes repeat markers past 7 days and keeps younger ones", async () => {
    const account = `contract-retention-${rand()}`;
    const now = Date.now();
    const insert = env.DB.prepare(
      "INSERT INTO repeats (account_id, product, key, result, created_at) VALUES (?, ?, ?, '{}', ?)",
    );
    await env.DB.batch([
      insert.bind(account, product.name, "old", now - 7 * DAY_MS - MINUTE),
      insert.bind(account, product.name, "young", now - 7 * DAY_MS + 10 * MINUTE),
    ]);
    await dailyCron();
    const left = await env.DB.prepare("SELECT key FROM repeats WHERE account_id = ?")
      .bind(account)
      .all<{ key: string }>();
    expect(left.results.map((r) => r.key)).toEqual(["young"]);
  });

  it("deletes history past 90 days and keeps younger entries", async () => {
    const account = `contract-retention-${rand()}`;
    const now = Date.now();
    const insert = env.DB.prepare(
      "INSERT INTO history (account_id, product, request_id, value, key, verdict, reason, credits_used, cache_hit, " +
        "suppressed, created_at) VALUES (?, ?, 'req', ?, ?, 'good', NULL, 1, 0, 0, ?)",
    );
    await env.DB.batch([
      insert.bind(account, product.name, "old", "old", now - 90 * DAY_MS - MINUTE),
      insert.bind(account, product.name, "young", "young", now - 89 * DAY_MS),
    ]);
    await dailyCron();
    const left = await env.DB.prepare("SELECT key FROM history WHERE account_id = ?")
      .bind(account)
      .all<{ key: string }>();
    expect(left.results.map((r) => r.key)).toEqual(["young"]);
  });
});

describe("daily retention: shared rows", () => {
  it("deletes shared mailbox answers older than a week and keeps younger ones", async () => {
    const domain = `retention-${rand()}.example`;
    const now = Date.now();
    const insert = env.DB.prepare(
      "INSERT INTO mailbox_answers (email, domain, outcome, checked_at) VALUES (?, ?, 'accepted', ?)",
    );
    await env.DB.batch([
      insert.bind(`old@${domain}`, domain, now - 7 * DAY_MS - MINUTE),
      insert.bind(`young@${domain}`, domain, now - 6 * DAY_MS),
    ]);
    await dailyCron();
    const left = await env.DB.prepare("SELECT email FROM mailbox_answers WHERE domain = ?")
      .bind(domain)
      .all<{ email: string }>();
    expect(left.results.map((r) => r.email)).toEqual([`young@${domain}`]);
  });

  it("deletes request log rows past 90 days and keeps younger ones", async () => {
    const account = `contract-retention-${rand()}`;
    const now = Date.now();
    const insert = env.DB.prepare(
      "INSERT INTO request_log (request_id, account_id, key_id, method, path, status, code, credits, created_at) " +
        "VALUES (?, ?, NULL, 'POST', '/api/v1/email', 200, NULL, 1, ?)",
    );
    await env.DB.batch([
      insert.bind(`old-${account}`, account, now - 90 * DAY_MS - MINUTE),
      insert.bind(`young-${account}`, account, now - 89 * DAY_MS),
    ]);
    await dailyCron();
    expect(
      await count("SELECT COUNT(*) AS n FROM request_log WHERE account_id = ? AND request_id LIKE 'old-%'", account),
    ).toBe(0);
    expect(await count("SELECT COUNT(*) AS n FROM request_log WHERE account_id = ?", account)).toBe(1);
  });
});

describe.each(SUBJECTS)("retention inside the account's object: $label", ({ product }) => {
  it("prunes repeat markers past 7 days and history past 90 days, keeping younger rows", async () => {
    const acct = await createAccount();
    const now = Date.now();
    const repeat = "INSERT INTO repeats (product, key, result, created_at) VALUES (?, ?, '{}', ?)";
    await accountRows(acct.accountId, repeat, product.name, "old", now - 7 * DAY_MS - MINUTE);
    await accountRows(acct.accountId, repeat, product.name, "young", now - 7 * DAY_MS + 10 * MINUTE);
    const history =
      "INSERT INTO history (product, request_id, value, key, verdict, reason, credits_used, cache_hit, suppressed, " +
      "created_at) VALUES (?, 'req', ?, ?, 'good', NULL, 1, 0, 0, ?)";
    await accountRows(acct.accountId, history, product.name, "old", "old", now - 90 * DAY_MS - MINUTE);
    await accountRows(acct.accountId, history, product.name, "young", "young", now - 89 * DAY_MS);
    await accountObject(acct.accountId).pruneLists(now);
    expect(await accountRows(acct.accountId, "SELECT key FROM repeats")).toEqual([{ key: "young" }]);
    expect(await accountRows(acct.accountId, "SELECT key FROM history")).toEqual([{ key: "young" }]);
  });
});
