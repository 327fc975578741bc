import { env, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { MONITOR_BOUNDS } from "../../src/engines/monitors/bounds";
import { createMonitor } from "../../src/engines/monitors/edit";
import { runMonitor } from "../../src/engines/monitors/run";
import { monitorById } from "../../src/engines/monitors/store";
import { dropSettledMonitorBodies, SETTLED_MONITOR_BODY_MS } from "../../src/engines/webhooks/retention";
import { PRODUCTS } from "../../src/products/registry";
import { anotherKey, BASE, createAccount, type TestAccount } from "../helpers";
import { deliveredAt } from "../webhook-receiver";

/**
 * Issue 48, item 4: monitor runs stored their webhook bodies (100 KB for 500 changed entries) for 30 days, free and
 * unbounded. What one account can make the service store is bounded (docs/api-decisions.md, "Monitors: what an
 * account can make the service store"): 100 monitors, 20 runs asked by hand a day, a settled run's body kept an hour.
 */
vi.setConfig({ testTimeout: 60_000 });

const call = (key: string, path: string, init: { method?: string; body?: unknown } = {}) =>
  SELF.fetch(`${BASE}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

const newMonitor = (key: string, name: string) =>
  call(key, "/email/monitors", {
    method: "POST",
    body: { name, emails: ["deliverable@service.test"], cadence: "monthly" },
  });

/** `n` monitors of the account written straight to D1, half email, half entity (the bound counts all products). */
async function fill(acct: TestAccount, n: number) {
  await env.DB.prepare(
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO monitors " +
      "(account_id, key_id, product, name, entries, cadence, next_run_at, created_at) SELECT ?, ?, " +
      "CASE i % 2 WHEN 0 THEN 'email' ELSE 'entity' END, 'Filler ' || i, '[\"deliverable@service.test\"]', " +
      "'monthly', ?, ? FROM n",
  )
    .bind(n, acct.accountId, acct.keyId, Date.now() + 30 * 86_400_000, Date.now())
    .run();
}

const monitorCount = async (accountId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM monitors WHERE account_id = ?").bind(accountId).first<{
    n: number;
  }>())!.n;

describe("monitors per account", () => {
  it(`an account holds at most ${MONITOR_BOUNDS.monitorsPerAccount}: past it 409 MONITOR_LIMIT_REACHED`, async () => {
    expect(MONITOR_BOUNDS.monitorsPerAccount).toBe(100);
    const acct = await createAccount();
    await fill(acct, 98);
    // Three at once at 98: exactly two fit, whichever arrive first.
    const keys = [acct.key, await anotherKey(acct), await anotherKey(acct)];
    const raced = await Promise.all(keys.map((key, i) => newMonitor(key, `Raced ${i}`)));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 409]);
    expect(await monitorCount(acct.accountId)).toBe(100);
    const refused = await newMonitor(await anotherKey(acct), "One more");
    const body = (await refused.json()) as { success: boolean; error: { code: string; message: string } };
    expect([refused.status, body.success, body.error.code]).toEqual([409, false, "MONITOR_LIMIT_REACHED"]);
    expect(body.error.message).toContain("at most 100 monitors");
    expect(await monitorCount(acct.accountId)).toBe(100);
    // Deleting one makes room for exactly one.
    const { id } = (await env.DB.prepare("SELECT id FROM monitors WHERE account_id = ? AND product = 'email' LIMIT 1")
      .bind(acct.accountId)
      .first<{ id: number }>())!;
    const key = await anotherKey(acct);
    expect((await call(key, `/email/monitors/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await newMonitor(key, "Room again")).status).toBe(201);
    expect((await newMonitor(await anotherKey(acct), "Past it again")).status).toBe(409);
  });
});

describe("runs asked by hand", () => {
  it(`at most ${MONITOR_BOUNDS.runsPerDay} a day per account; then 429 RATE_LIMITED, nothing run`, async () => {
    expect(MONITOR_BOUNDS.runsPerDay).toBe(20);
    const acct = await createAccount();
    const made = (await (await newMonitor(acct.key, "Runs")).json()) as { data: { monitor: { id: number } } };
    const id = made.data.monitor.id;
    // Five keys, four runs each: within every key's own 5 a second, so only the account's daily bound refuses.
    const keys = [acct.key, ...(await Promise.all([1, 2, 3, 4].map(() => anotherKey(acct))))];
    const statuses: number[] = [];
    for (let i = 0; i < MONITOR_BOUNDS.runsPerDay; i++)
      statuses.push((await call(keys[i % keys.length]!, `/email/monitors/${id}/run`, { method: "POST" })).status);
    expect(statuses).toEqual(Array(MONITOR_BOUNDS.runsPerDay).fill(200));
    const before = await env.DB.prepare("SELECT last_run_at FROM monitors WHERE id = ?").bind(id).first();
    const refused = await call(await anotherKey(acct), `/email/monitors/${id}/run`, { method: "POST" });
    const body = (await refused.json()) as { error: { code: string } };
    expect([refused.status, body.error.code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await env.DB.prepare("SELECT last_run_at FROM monitors WHERE id = ?").bind(id).first()).toEqual(before);
    // Scheduled runs (the queue's, through the same engine function) are not counted: one still runs.
    const row = (await monitorById(env, id))!;
    const scheduled = await runMonitor(env, PRODUCTS.email, row, { now: Date.now() + 1_000 });
    expect(scheduled.monitor.lastRunAt).toBeGreaterThan(Number((before as { last_run_at: number }).last_run_at));
  });
});

describe("a settled run's body", () => {
  it(`is kept ${SETTLED_MONITOR_BODY_MS / 60_000} minutes after it settles, then only its record`, async () => {
    const acct = await createAccount();
    const path = `/ok/bounds-${crypto.randomUUID()}`;
    const fields = {
      name: "Posted",
      entries: ["deliverable@service.test"],
      cadence: "weekly" as const,
      webhookUrl: `${env.RECEIVER_URL}${path}`,
      webhookEvents: "every_run" as const,
      alertEmails: false,
    };
    const { row } = await createMonitor(env, PRODUCTS.email, acct, fields);
    await runMonitor(env, PRODUCTS.email, row);
    await deliveredAt(path, 1);
    const record = () =>
      env.DB.prepare(
        "SELECT status, body, body_key, updated_at FROM webhook_deliveries WHERE owner = 'monitor' AND owner_id = ?",
      )
        .bind(String(row.id))
        .first<{ status: string; body: string; body_key: string | null; updated_at: number }>();
    await vi.waitFor(async () => expect((await record())!.status).toBe("delivered"));
    const settled = (await record())!;
    expect(settled.body.length).toBeGreaterThan(100);
    // A job's body (kept for redelivery) and a pending monitor body are never dropped.
    const other = await env.DB.prepare(
      "INSERT INTO webhook_deliveries (owner, owner_id, event, url, secret, body, status, attempts, created_at, " +
        "updated_at) VALUES ('job', ?, 'e', 'https://x.test/', 'whsec_x', '{\"job\":1}', 'delivered', 1, ?, ?), " +
        "('monitor', ?, 'e', 'https://x.test/', 'whsec_x', '{\"pending\":1}', 'pending', 1, ?, ?) RETURNING id",
    )
      .bind(
        `job-${row.id}`,
        settled.updated_at,
        settled.updated_at,
        `m-${row.id}`,
        settled.updated_at,
        settled.updated_at,
      )
      .all<{ id: number }>();
    await dropSettledMonitorBodies(env, settled.updated_at + SETTLED_MONITOR_BODY_MS);
    expect((await record())!.body).toBe(settled.body);
    await dropSettledMonitorBodies(env, settled.updated_at + SETTLED_MONITOR_BODY_MS + 1);
    expect(await record()).toMatchObject({ status: "delivered", body: "", body_key: null });
    const ids = other.results.map((r) => r.id).join(",");
    const kept = await env.DB.prepare(`SELECT body FROM webhook_deliveries WHERE id IN (${ids}) ORDER BY id`).all();
    expect(kept.results).toEqual([{ body: '{"job":1}' }, { body: '{"pending":1}' }]);
  });

  it("a body frozen in R2 goes with it", async () => {
    const key = `webhooks/${crypto.randomUUID()}.json`;
    await env.RESULTS.put(key, "{}");
    const at = Date.now() - SETTLED_MONITOR_BODY_MS - 1_000;
    await env.DB.prepare(
      "INSERT INTO webhook_deliveries (owner, owner_id, event, url, secret, body, body_key, status, attempts, " +
        "created_at, updated_at) VALUES ('monitor', ?, 'e', 'https://x.test/', 'whsec_x', '', ?, 'failed', 3, ?, ?)",
    )
      .bind(`r2-${key}`, key, at, at)
      .run();
    await dropSettledMonitorBodies(env, Date.now());
    expect(await env.RESULTS.get(key)).toBeNull();
  });
});
