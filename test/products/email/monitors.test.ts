import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compareAddress, compareDomain } from "../../../src/products/email/monitor";
import { runDueMonitor } from "../../../workers/monitors";
import { anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { deliveredAt, WebhookVerifier } from "../../webhook-receiver";

type Change = { field: string; from: unknown; to: unknown };
interface RunBody {
  monitor: { id: number; last_summary: Record<string, unknown> };
  summary: Record<string, unknown>;
  changes: { identifier: string; changes: Change[] }[];
}
const rand = () => crypto.randomUUID().slice(0, 8);

async function keys(acct: TestAccount) {
  const pool = [acct.key, await anotherKey(acct), await anotherKey(acct)];
  let i = 0;
  return () => pool[i++ % pool.length]!;
}

const create = (key: string, path: string, body: Record<string, unknown>) =>
  call<{ monitor: Record<string, unknown> & { id: number }; webhook_secret?: string }>(
    `/api/v1/email/${path}`,
    json({ name: "Watch", cadence: "weekly", ...body }, { Authorization: `Bearer ${key}` }),
  );
const run = (key: string, path: string, id: number) =>
  call<RunBody>(`/api/v1/email/${path}/${id}/run`, { method: "POST", ...bearer(key) });

describe("email monitors: what counts as a change", () => {
  const seen = { deliverable: "deliverable", reason: null, disposable: false, role: false };
  it.each([
    [
      "deliverable -> risky",
      { ...seen, deliverable: "risky", reason: "catch_all" },
      [{ field: "deliverable", from: "deliverable", to: "risky" }],
    ],
    [
      "deliverable -> undeliverable",
      { ...seen, deliverable: "undeliverable", reason: "mailbox_not_found" },
      [{ field: "deliverable", from: "deliverable", to: "undeliverable" }],
    ],
    ["a new disposable flag", { ...seen, disposable: true }, [{ field: "disposable", from: false, to: true }]],
    ["a new role flag", { ...seen, role: true }, [{ field: "role", from: false, to: true }]],
    ["nothing", seen, []],
  ])("reports %s", (_label, now, expected) => {
    expect(compareAddress(seen, now)).toEqual(expected);
  });

  it("does not report an improvement or a flag that went away", () => {
    expect(
      compareAddress({ ...seen, deliverable: "undeliverable", role: true }, { ...seen, deliverable: "deliverable" }),
    ).toEqual([]);
  });

  it("reports domain set-up changes, leaving out fields unknown on either side", () => {
    const before = {
      valid: true,
      mx_found: true,
      null_mx: false,
      has_spf: true,
      dmarc_policy: "none",
      catch_all: null,
      disposable: false,
    };
    const after = { ...before, mx_found: false, null_mx: true, has_spf: null, dmarc_policy: "reject", catch_all: true };
    expect(compareDomain(before, after)).toEqual([
      { field: "mx_found", from: true, to: false },
      { field: "null_mx", from: false, to: true },
      { field: "dmarc_policy", from: "none", to: "reject" },
    ]);
  });
});

describe("GET, POST /api/v1/email/monitors and .../run", () => {
  it(
    "re-verifies a saved list like a batch, reports decay and posts email_monitor.run with summary = " + "last_summary",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const key = await keys(acct);
      const path = `/ok/email-monitor-${rand()}`;
      const paid = `p${rand()}@catchall.example`;
      const created = await create(key(), "monitors", {
        emails: [paid, "deliverable@service.test", "bob@acme.example"],
        webhook_url: `${env.RECEIVER_URL}${path}`,
      });
      expect(created.status).toBe(201);
      expect(created.body.data.monitor).toMatchObject({
        emails: [paid, "deliverable@service.test", "bob@acme.example"],
        cadence: "weekly",
        webhook_events: "changes",
      });
      const id = created.body.data.monitor.id;

      const first = await run(key(), "monitors", id);
      expect(first.body.data.summary).toEqual({
        checked: 3,
        deliverable: 2,
        risky: 1,
        undeliverable: 0,
        changed: 0,
        new_baselines: 3,
        credits_used: 2,
        stopped_reason: null,
      });
      expect(first.body.meta).toMatchObject({ request_id: expect.any(String) });

      const repeat = await run(key(), "monitors", id);
      expect(repeat.body.data.summary).toMatchObject({ changed: 0, new_baselines: 0, credits_used: 0 });

      await call(
        "/api/v1/email/feedback",
        json({ events: [{ email: "bob@acme.example", outcome: "complained" }] }, { Authorization: `Bearer ${key()}` }),
      );
      const decayed = await run(key(), "monitors", id);
      expect(decayed.body.data.summary).toMatchObject({
        checked: 3,
        deliverable: 1,
        undeliverable: 1,
        changed: 1,
        credits_used: 0,
        stopped_reason: null,
      });
      expect(decayed.body.data.changes).toEqual([
        {
          identifier: "bob@acme.example",
          input: "bob@acme.example",
          changes: [{ field: "deliverable", from: "deliverable", to: "undeliverable" }],
          // The complaint suppressed the address: the run answers it from the account's suppressions.
          reason: "suppressed",
        },
      ]);
      expect(decayed.body.data.monitor.last_summary).toEqual(decayed.body.data.summary);

      const [delivery] = await deliveredAt(path, 1);
      expect(
        await new WebhookVerifier(created.body.data.webhook_secret!).verify(delivery!.headers, delivery!.body),
      ).toBe("ok");
      const posted = JSON.parse(delivery!.body);
      expect(posted).toMatchObject({
        event: "email_monitor.run",
        monitor: { id, name: "Watch", cadence: "weekly" },
        summary: decayed.body.data.summary,
      });
      expect(posted.changes).toEqual(decayed.body.data.changes);
    },
  );

  it(
    "refuses more than 500 addresses and a malformed cadence with 422, and a run of an empty balance stops " + "early",
    async () => {
      const acct = await createAccount();
      const key = await keys(acct);
      const tooMany = await create(key(), "monitors", {
        emails: Array.from({ length: 501 }, (_, i) => `a${i}@acme.example`),
      });
      expect(tooMany.status).toBe(422);
      expect((await create(key(), "monitors", { emails: ["a@acme.example"], cadence: "daily" })).status).toBe(422);
      const created = await create(key(), "monitors", { emails: [`p${rand()}@catchall.example`] });
      const stopped = await run(key(), "monitors", created.body.data.monitor.id);
      expect(stopped.body.data.summary).toMatchObject({
        checked: 0,
        credits_used: 0,
        stopped_reason: "insufficient_credits",
      });
    },
  );

  it("keeps baselines of addresses a PATCH keeps, and answers another account's monitor with 404", async () => {
    const acct = await createAccount({ pack: 5 });
    const key = await keys(acct);
    const created = await create(key(), "monitors", { emails: ["deliverable@service.test", "role@service.test"] });
    const id = created.body.data.monitor.id;
    await run(key(), "monitors", id);
    const patched = await call<{ monitor: { emails: string[] } }>(
      `/api/v1/email/monitors/${id}`,
      json(
        { emails: ["deliverable@service.test", "catch-all@service.test"] },
        { Authorization: `Bearer ${key()}` },
        "PATCH",
      ),
    );
    expect(patched.body.data.monitor.emails).toEqual(["deliverable@service.test", "catch-all@service.test"]);
    expect((await run(key(), "monitors", id)).body.data.summary).toMatchObject({ checked: 2, new_baselines: 1 });
    const other = await createAccount();
    expect((await call(`/api/v1/email/monitors/${id}`, bearer(other.key))).status).toBe(404);
  });
});

describe("GET, POST /api/v1/email/domain-monitors and .../run", () => {
  it(
    "re-checks domains (MX, null MX, SPF, DMARC, catch-all, disposable), billing 1 per fresh domain that accepts " +
      "mail",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const key = await keys(acct);
      const path = `/ok/domain-monitor-${rand()}`;
      const created = await create(key(), "domain-monitors", {
        domains: ["acme.example", "NullMX.example"],
        webhook_url: `${env.RECEIVER_URL}${path}`,
        webhook_events: "every_run",
      });
      expect(created.status).toBe(201);
      expect(created.body.data.monitor).toMatchObject({
        domains: ["acme.example", "NullMX.example"],
        webhook_events: "every_run",
      });
      const id = created.body.data.monitor.id;
      const first = await run(key(), "domain-monitors", id);
      expect(first.body.data.summary).toEqual({
        checked: 2,
        mx_found: 1,
        changed: 0,
        new_baselines: 2,
        credits_used: 1,
        stopped_reason: null,
      });
      const second = await run(key(), "domain-monitors", id);
      expect(second.body.data.summary).toMatchObject({ checked: 2, changed: 0, new_baselines: 0, credits_used: 0 });
      const posted = (await deliveredAt(path, 2)).map((d) => JSON.parse(d.body));
      expect(posted.map((p) => p.event)).toEqual(["email_domain_monitor.run", "email_domain_monitor.run"]);
      expect(posted[1].summary).toEqual(second.body.data.summary);
    },
  );

  it("runs when due through the queue consumer, like every monitor", async () => {
    const acct = await createAccount({ pack: 5 });
    const created = await create(acct.key, "domain-monitors", { domains: ["acme.example"] });
    const monitor = created.body.data.monitor as { id: number; next_run_at: string };
    const dueAt = Date.parse(monitor.next_run_at);
    await runDueMonitor(env, monitor.id, dueAt, dueAt);
    const after = await call<{ monitor: { last_run_at: string; last_summary: Record<string, unknown> } }>(
      `/api/v1/email/domain-monitors/${monitor.id}`,
      bearer(acct.key),
    );
    expect(after.body.data.monitor.last_run_at).toBe(new Date(dueAt).toISOString());
    expect(after.body.data.monitor.last_summary).toMatchObject({ checked: 1, mx_found: 1, new_baselines: 1 });
  });

  it("keeps domain monitors and address monitors apart", async () => {
    const acct = await createAccount();
    const key = await keys(acct);
    const domains = await create(key(), "domain-monitors", { domains: ["acme.example"] });
    const addresses = await create(key(), "monitors", { emails: ["deliverable@service.test"] });
    expect((await call(`/api/v1/email/monitors/${domains.body.data.monitor.id}`, bearer(key()))).status).toBe(404);
    expect((await call(`/api/v1/email/domain-monitors/${addresses.body.data.monitor.id}`, bearer(key()))).status).toBe(
      404,
    );
    const listed = await call<{ monitors: { id: number }[] }>("/api/v1/email/domain-monitors", bearer(key()));
    expect(listed.body.data.monitors.map((m) => m.id)).toEqual([domains.body.data.monitor.id]);
  });

  it("renames and deletes a domain monitor", async () => {
    const acct = await createAccount();
    const created = await create(acct.key, "domain-monitors", { domains: ["acme.example"] });
    const id = created.body.data.monitor.id as number;
    const renamed = await call<{ monitor: { name: string } }>(`/api/v1/email/domain-monitors/${id}`, {
      method: "PATCH",
      headers: { Authorization: `Bearer ${acct.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Our domains" }),
    });
    expect([renamed.status, renamed.body.data.monitor.name]).toEqual([200, "Our domains"]);
    const deleted = await call(`/api/v1/email/domain-monitors/${id}`, { method: "DELETE", ...bearer(acct.key) });
    expect(deleted.status).toBe(200);
    expect((await call(`/api/v1/email/domain-monitors/${id}`, bearer(acct.key))).status).toBe(404);
  });
});

describe("email monitors: alert_emails on create and PATCH", () => {
  it("defaults to false, is set on create, changed by PATCH alone, and must be a boolean", async () => {
    const acct = await createAccount();
    const plain = await create(acct.key, "monitors", { emails: ["bob@acme.example"] });
    expect(plain.status).toBe(201);
    expect(plain.body.data.monitor.alert_emails).toBe(false);
    const on = await create(acct.key, "monitors", { emails: ["bob@acme.example"], alert_emails: true });
    expect(on.body.data.monitor.alert_emails).toBe(true);
    const patch = (body: unknown) =>
      call<{ monitor: { alert_emails: boolean } }>(
        `/api/v1/email/monitors/${on.body.data.monitor.id}`,
        json(body, { Authorization: `Bearer ${acct.key}` }, "PATCH"),
      );
    const off = await patch({ alert_emails: false });
    expect([off.status, off.body.data.monitor.alert_emails]).toEqual([200, false]);
    const bad = await patch({ alert_emails: "yes" });
    expect([bad.status, bad.body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    expect(bad.body.error.errors).toHaveProperty("alert_emails");
    const domain = await create(acct.key, "domain-monitors", { domains: ["acme.example"], alert_emails: true });
    expect([domain.status, domain.body.data.monitor.alert_emails]).toEqual([201, true]);
  });
});
