import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { leiCheckDigits } from "../../../src/products/entity/identifiers";
import { registeredProducts } from "../../../src/products/registry";
import { runDueMonitor } from "../../../workers/monitors";
import { admin, anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { receivedAt, WebhookVerifier } from "../../webhook-receiver";

const lei = (base: string) => `${base}${leiCheckDigits(base)}`;
const A = lei("MONTESTAAAAAAAAAAA");
const B = lei("MONTESTBBBBBBBBBBB");
const C = lei("MONTESTCCCCCCCCCCC");

const row = (identifier: string, name: string, status = "active") => ({
  identifier,
  name,
  status,
  status_detail: status === "active" ? "ACTIVE" : "INACTIVE",
  country: "GB",
  registration_status: "ISSUED",
  linked_register: null,
  linked_identifier: null,
});

async function putRows(rows: ReturnType<typeof row>[]) {
  await admin("POST", "/registers/gleif-lei/rows", { rows });
}

interface Monitor {
  id: number;
  name: string;
  cadence: string;
  next_run_at: string;
  last_run_at: string | null;
  webhook_url: string | null;
  webhook_status: string | null;
  last_summary: Record<string, unknown> | null;
}

interface RunBody {
  monitor: Monitor;
  summary: {
    checked: number;
    found: number;
    changed: number;
    new_baselines: number;
    credits_used: number;
    stopped_reason: string | null;
  };
  changes: { identifier: string; changes: { field: string; from: unknown; to: unknown }[] }[];
}

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

async function createMonitor(acct: TestAccount, body: Record<string, unknown>) {
  return call<{ monitor: Monitor; webhook_secret?: string }>(
    "/api/v1/entity/monitors",
    json({ name: "Suppliers", cadence: "weekly", ...body }, auth(acct.key)),
  );
}

const run = async (key: string, id: number) =>
  call<RunBody>(`/api/v1/entity/monitors/${id}/run`, { method: "POST", ...bearer(key) });

async function waitFor<T>(read: () => Promise<T>, ready: (value: T) => boolean, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!ready(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

beforeAll(async () => {
  await putRows([row(A, "Alpha Holdings Ltd"), row(B, "Beta Trading plc"), row(C, "Gamma Services Ltd")]);
  await admin("POST", "/registers/gleif-lei/complete", {
    version: "2026-11-01",
    records: 3,
    coverage: { kind: "full" },
  });
});

describe("entity monitors", () => {
  it("creates a monitor, returns the signing secret once, and a first run only sets baselines", async () => {
    const acct = await createAccount({ pack: 10 });
    const path = `/ok/monitor-${crypto.randomUUID()}`;
    const created = await createMonitor(acct, { identifiers: [A, B], webhook_url: `${env.RECEIVER_URL}${path}` });
    expect(created.status).toBe(201);
    expect(created.body.data.webhook_secret).toMatch(/^whsec_/);
    expect(JSON.stringify(created.body.data.monitor)).not.toContain(created.body.data.webhook_secret!);
    const first = await run(acct.key, created.body.data.monitor.id);
    expect(first.body.data.summary).toMatchObject({
      checked: 2,
      found: 2,
      changed: 0,
      new_baselines: 2,
      credits_used: 2,
      stopped_reason: null,
    });
    expect(first.body.data.changes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await receivedAt(path)).toHaveLength(0);
  });

  it("reports a status or name change against the baseline and posts a signed entity_monitor.run", async () => {
    const acct = await createAccount({ pack: 10 });
    const D = lei("MONTESTDDDDDDDDDDD");
    await putRows([row(D, "Delta Ltd")]);
    const path = `/ok/monitor-${crypto.randomUUID()}`;
    const created = await createMonitor(acct, { identifiers: [D], webhook_url: `${env.RECEIVER_URL}${path}` });
    const id = created.body.data.monitor.id;
    await run(acct.key, id);
    await putRows([row(D, "Delta Renamed Ltd", "dissolved")]);
    const second = await run(await anotherKey(acct), id);
    expect(second.body.data.summary).toMatchObject({ changed: 1, new_baselines: 0 });
    expect(second.body.data.changes[0]!.changes.map((c) => c.field).sort()).toEqual(["name", "status"]);
    const [delivery] = await waitFor(
      () => receivedAt(path),
      (d) => d.length === 1,
    );
    expect(await new WebhookVerifier(created.body.data.webhook_secret!).verify(delivery!.headers, delivery!.body)).toBe(
      "ok",
    );
    const posted = JSON.parse(delivery!.body);
    expect(posted).toMatchObject({
      event: "entity_monitor.run",
      monitor: { id, name: "Suppliers", cadence: "weekly" },
      summary: { changed: 1 },
    });
    expect(posted.monitor.last_run_at).toEqual(expect.any(String));
    const polled = await waitFor(
      async () =>
        (await call<{ monitor: Monitor }>(`/api/v1/entity/monitors/${id}`, bearer(await anotherKey(acct)))).body.data
          .monitor,
      (m) => m.webhook_status === "delivered",
    );
    expect(polled.last_summary).toMatchObject({ changed: 1 });
  });

  it("posts every run with webhook_events every_run, and a run that stopped early in changes mode", async () => {
    const acct = await createAccount({ pack: 0 });
    const path = `/ok/monitor-${crypto.randomUUID()}`;
    const created = await createMonitor(acct, { identifiers: [A], webhook_url: `${env.RECEIVER_URL}${path}` });
    const stopped = await run(acct.key, created.body.data.monitor.id);
    expect(stopped.body.data.summary).toMatchObject({ checked: 0, stopped_reason: "insufficient_credits" });
    await waitFor(
      () => receivedAt(path),
      (d) => d.length === 1,
    );
    const everyPath = `/ok/monitor-${crypto.randomUUID()}`;
    const funded = await createAccount({ pack: 5 });
    const every = await createMonitor(funded, {
      identifiers: [B],
      webhook_url: `${env.RECEIVER_URL}${everyPath}`,
      webhook_events: "every_run",
    });
    await run(funded.key, every.body.data.monitor.id);
    expect(
      await waitFor(
        () => receivedAt(everyPath),
        (d) => d.length === 1,
      ),
    ).toHaveLength(1);
  });

  describe("PATCH /entity/monitors/{id}", () => {
    it("answers 422 for a body naming none of the fields", async () => {
      const acct = await createAccount({ pack: 5 });
      const created = await createMonitor(acct, { identifiers: [A] });
      const { status, body } = await call(
        `/api/v1/entity/monitors/${created.body.data.monitor.id}`,
        json({}, auth(acct.key), "PATCH"),
      );
      expect(status).toBe(422);
      expect(body.error.code).toBe("VALIDATION_FAILED");
    });

    it("keeps baselines of entries that stay, drops removed ones, and new entries start without one", async () => {
      const acct = await createAccount({ pack: 10 });
      const created = await createMonitor(acct, { identifiers: [A, B] });
      const id = created.body.data.monitor.id;
      await run(acct.key, id);
      const patched = await call(
        `/api/v1/entity/monitors/${id}`,
        json({ identifiers: [B, C], name: "Renamed" }, auth(acct.key), "PATCH"),
      );
      expect(patched.status).toBe(200);
      const keys = await env.DB.prepare(
        "SELECT entry_key FROM monitor_baselines WHERE monitor_id = ? ORDER BY entry_key",
      )
        .bind(id)
        .all<{ entry_key: string }>();
      expect(keys.results.map((r) => r.entry_key)).toEqual([`lei::${B}`]);
      const next = await run(await anotherKey(acct), id);
      expect(next.body.data.summary).toMatchObject({ checked: 2, new_baselines: 1, changed: 0 });
    });

    it("mints a new secret for a new URL, keeps it for the same URL, and null removes the webhook", async () => {
      const acct = await createAccount({ pack: 5 });
      const url = `${env.RECEIVER_URL}/ok/p-${crypto.randomUUID()}`;
      const created = await createMonitor(acct, { identifiers: [A], webhook_url: url });
      const id = created.body.data.monitor.id;
      const same = await call<{ webhook_secret?: string }>(
        `/api/v1/entity/monitors/${id}`,
        json({ webhook_url: url }, auth(acct.key), "PATCH"),
      );
      expect(same.body.data.webhook_secret).toBeUndefined();
      const moved = await call<{ webhook_secret?: string }>(
        `/api/v1/entity/monitors/${id}`,
        json({ webhook_url: `${url}-2` }, auth(acct.key), "PATCH"),
      );
      expect(moved.body.data.webhook_secret).toMatch(/^whsec_/);
      expect(moved.body.data.webhook_secret).not.toBe(created.body.data.webhook_secret);
      const removed = await call<{ monitor: Monitor }>(
        `/api/v1/entity/monitors/${id}`,
        json({ webhook_url: null }, auth(acct.key), "PATCH"),
      );
      expect(removed.body.data.monitor.webhook_url).toBeNull();
    });

    it("changes cadence without skipping or doubling a run", async () => {
      const acct = await createAccount({ pack: 5 });
      const created = await createMonitor(acct, { identifiers: [A], cadence: "weekly" });
      const id = created.body.data.monitor.id;
      const weeklyNext = Date.parse(created.body.data.monitor.next_run_at);
      const monthly = await call<{ monitor: Monitor }>(
        `/api/v1/entity/monitors/${id}`,
        json({ cadence: "monthly" }, auth(acct.key), "PATCH"),
      );
      expect(Date.parse(monthly.body.data.monitor.next_run_at)).toBe(weeklyNext);
      const back = await call<{ monitor: Monitor }>(
        `/api/v1/entity/monitors/${id}`,
        json({ cadence: "weekly" }, auth(acct.key), "PATCH"),
      );
      expect(Date.parse(back.body.data.monitor.next_run_at)).toBe(weeklyNext);
    });

    it("answers 404 for another account's monitor on every route", async () => {
      const mine = await createAccount({ pack: 5 });
      const theirs = await createAccount({ pack: 5 });
      const created = await createMonitor(theirs, { identifiers: [A] });
      const id = created.body.data.monitor.id;
      expect((await call(`/api/v1/entity/monitors/${id}`, bearer(mine.key))).status).toBe(404);
      expect((await call(`/api/v1/entity/monitors/${id}`, json({ name: "x" }, auth(mine.key), "PATCH"))).status).toBe(
        404,
      );
      expect((await run(mine.key, id)).status).toBe(404);
      expect((await call(`/api/v1/entity/monitors/${id}`, { method: "DELETE", ...bearer(mine.key) })).status).toBe(404);
    });
  });

  it("runs due monitors from the cron, once", async () => {
    const acct = await createAccount({ pack: 5 });
    const created = await createMonitor(acct, { identifiers: [C] });
    const id = created.body.data.monitor.id;
    const due = Date.now() - 1_000;
    await env.DB.prepare("UPDATE monitors SET next_run_at = ? WHERE id = ?").bind(due, id).run();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "*/5 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const after = await waitFor(
      async () =>
        (await call<{ monitor: Monitor }>(`/api/v1/entity/monitors/${id}`, bearer(await anotherKey(acct)))).body.data
          .monitor,
      (m) => m.last_run_at !== null,
    );
    expect(after.last_summary).toMatchObject({ checked: 1, new_baselines: 1 });
    expect(Date.parse(after.next_run_at)).toBeGreaterThan(Date.now() + 6 * 86_400_000);
  });

  it("lists the account's monitors and deletes one", async () => {
    const acct = await createAccount({ pack: 5 });
    await createMonitor(acct, { identifiers: [A] });
    const second = await createMonitor(acct, { identifiers: [B], name: "Second" });
    const list = await call<{ monitors: Monitor[] }>("/api/v1/entity/monitors", bearer(acct.key));
    expect(list.body.data.monitors.map((m) => m.name)).toEqual(["Second", "Suppliers"]);
    expect(list.body.meta).toMatchObject({ total: 2, per_page: 100 });
    const deleted = await call(`/api/v1/entity/monitors/${second.body.data.monitor.id}`, {
      method: "DELETE",
      ...bearer(acct.key),
    });
    expect(deleted.status).toBe(200);
  });

  it("validates identifiers: company numbers need a country, at most 500, name at most 100", async () => {
    const acct = await createAccount({ pack: 5 });
    const missing = await createMonitor(acct, { identifiers: [A, { identifier: "01234567", type: "company_number" }] });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.error.errors!)).toEqual(["identifiers.1.country"]);
    expect((await createMonitor(acct, { identifiers: [A], name: "x".repeat(101) })).status).toBe(422);
  });

  it("a run whose first entry cannot be paid stops with nothing checked and is posted in changes mode", async () => {
    const acct = await createAccount({ pack: 0 });
    const path = `/ok/monitor-${crypto.randomUUID()}`;
    const created = await createMonitor(acct, { identifiers: [A, B], webhook_url: `${env.RECEIVER_URL}${path}` });
    const id = created.body.data.monitor.id;
    const refused = await run(acct.key, id);
    expect(refused.status).toBe(200);
    const summary = {
      checked: 0,
      changed: 0,
      new_baselines: 0,
      credits_used: 0,
      stopped_reason: "insufficient_credits",
    };
    expect(refused.body.data.summary).toMatchObject(summary);
    expect(refused.body.data.changes).toEqual([]);
    expect(refused.body.data.monitor.last_summary).toEqual(refused.body.data.summary);
    const [delivery] = await waitFor(
      () => receivedAt(path),
      (d) => d.length === 1,
    );
    const posted = JSON.parse(delivery!.body);
    expect(posted).toMatchObject({ event: "entity_monitor.run", monitor: { id }, summary, changes: [] });
    expect(posted.summary).toEqual(refused.body.data.summary);
    const baselines = await env.DB.prepare("SELECT COUNT(*) AS n FROM monitor_baselines WHERE monitor_id = ?")
      .bind(id)
      .first<{ n: number }>();
    expect(baselines?.n).toBe(0);
  });

  it("runs a due monitor once when its message is delivered twice", async () => {
    const acct = await createAccount({ pack: 5 });
    const created = await createMonitor(acct, { identifiers: [B] });
    const id = created.body.data.monitor.id;
    const due = Date.now() - 1_000;
    await env.DB.prepare("UPDATE monitors SET next_run_at = ? WHERE id = ?").bind(due, id).run();
    await runDueMonitor(env, id, due, due + 10);
    await runDueMonitor(env, id, due, due + 20);
    const after = await env.DB.prepare("SELECT last_run_at, next_run_at FROM monitors WHERE id = ?")
      .bind(id)
      .first<{ last_run_at: number; next_run_at: number }>();
    expect(after).toEqual({ last_run_at: due + 10, next_run_at: due + 10 + 7 * 86_400_000 });
  });
});

/**
 * Every product with a monitor shape gets the same routes; these rows are written directly, so no product input is
 * needed.
 */
describe.each(
  registeredProducts()
    .filter((p) => p.monitor)
    .map((p) => [p.name] as const),
)("%s monitors (any product)", (product) => {
  async function rawMonitor(acct: TestAccount, owner = product) {
    const now = Date.now();
    const row = await env.DB.prepare(
      "INSERT INTO monitors (account_id, key_id, product, name, entries, cadence, webhook_events, next_run_at, " +
        "created_at) VALUES (?, ?, ?, 'Raw', '[]', 'weekly', 'changes', ?, ?) RETURNING id",
    )
      .bind(acct.accountId, acct.keyId, owner, now + 7 * 86_400_000, now)
      .first<{ id: number }>();
    return row!.id;
  }

  it("answers 422 to a PATCH naming none of the fields", async () => {
    const acct = await createAccount({ pack: 0 });
    const id = await rawMonitor(acct);
    const empty = await call(`/api/v1/${product}/monitors/${id}`, json({}, auth(acct.key), "PATCH"));
    expect(empty.status).toBe(422);
    expect(empty.body.error.code).toBe("VALIDATION_FAILED");
    const unknown = await call(`/api/v1/${product}/monitors/${id}`, json({ colour: "red" }, auth(acct.key), "PATCH"));
    expect(unknown.status).toBe(422);
    const renamed = await call<{ monitor: Monitor }>(
      `/api/v1/${product}/monitors/${id}`,
      json({ name: "Kept" }, auth(acct.key), "PATCH"),
    );
    expect(renamed.body.data.monitor.name).toBe("Kept");
  });

  it("lists, runs and deletes a monitor, which is then gone", async () => {
    const acct = await createAccount({ pack: 1 });
    const id = await rawMonitor(acct);
    const listed = await call<{ monitors: { id: number }[] }>(`/api/v1/${product}/monitors`, bearer(acct.key));
    expect(listed.body.data.monitors.map((m) => m.id)).toEqual([id]);
    const ran = await call<{ monitor: Monitor; changes: unknown[] }>(`/api/v1/${product}/monitors/${id}/run`, {
      method: "POST",
      ...bearer(acct.key),
    });
    expect([ran.status, ran.body.data.monitor.id, ran.body.data.changes]).toEqual([200, id, []]);
    const deleted = await call(`/api/v1/${product}/monitors/${id}`, { method: "DELETE", ...bearer(acct.key) });
    expect(deleted.status).toBe(200);
    expect((await call(`/api/v1/${product}/monitors/${id}`, bearer(acct.key))).status).toBe(404);
  });

  it("answers 404 for another account's monitor, and for another product's", async () => {
    const mine = await createAccount({ pack: 5 });
    const theirs = await createAccount({ pack: 5 });
    const id = await rawMonitor(theirs);
    expect((await call(`/api/v1/${product}/monitors/${id}`, bearer(mine.key))).status).toBe(404);
    expect((await call(`/api/v1/${product}/monitors/${id}`, json({ name: "x" }, auth(mine.key), "PATCH"))).status).toBe(
      404,
    );
    expect((await call(`/api/v1/${product}/monitors/${id}/run`, { method: "POST", ...bearer(mine.key) })).status).toBe(
      404,
    );
    expect((await call(`/api/v1/${product}/monitors/${id}`, { method: "DELETE", ...bearer(mine.key) })).status).toBe(
      404,
    );
    const foreign = await rawMonitor(mine, product === "email" ? "entity" : "email");
    expect((await call(`/api/v1/${product}/monitors/${foreign}`, bearer(await anotherKey(mine)))).status).toBe(404);
    expect((await call(`/api/v1/${product}/monitors/${id}`, bearer(theirs.key))).status).toBe(200);
  });
});
