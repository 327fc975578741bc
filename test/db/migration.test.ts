import { applyD1Migrations, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * migrations/0004_shared_engines.sql moves every email and entity row of the old per-product tables into the shared
 * engine tables. Here an empty database is migrated to 0003, filled with rows as the old code wrote them, migrated to
 * 0004, and every new table is compared with exactly what it must hold.
 */
const db = env.MIGRATION_DB;
const T = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const min = (n: number) => T + n * 60_000;

const all = async (sql: string) => (await db.prepare(sql).all()).results;
const tables = async () =>
  (await all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")).map((r) => r.name);
const columns = async (table: string) => (await all(`PRAGMA table_info(\`${table}\`)`)).map((r) => r.name);

const LEI = "5493001KJTIIGC8Y1R12";
const emailResult = (email: string, deliverable: string) =>
  JSON.stringify({ email, normalized_email: email, deliverable, reason: null });
const entityResult = (identifier: string, name: string) =>
  JSON.stringify({ identifier, found: true, name, status: "active", flags: [] });
const observed = (name: string, status = "active") => JSON.stringify({ found: true, name, status, flags: [] });
const jobBody = JSON.stringify({
  event: "bulk_email_job.finished",
  job: { id: 5, product: "email", status: "finished", total: 3 },
});
const emailCounts = JSON.stringify({ deliverable: 2, undeliverable: 1 });

// Rows exactly as the old code wrote them, in the old tables.
const OLD = {
  accounts: [
    { id: "acct_a", email: "owner-a@example.com", email_verified: 1, feedback_key_hash: null, created_at: T },
    { id: "acct_b", email: "owner-b@example.org", email_verified: 0, feedback_key_hash: null, created_at: T },
  ],
  users: [
    { id: "usr_owner", email: "owner-a@example.com", created_at: T },
    { id: "usr_member", email: "member@example.com", created_at: T },
  ],
  memberships: [
    { account_id: "acct_a", user_id: "usr_owner", created_at: T },
    { account_id: "acct_a", user_id: "usr_member", created_at: T },
    { account_id: "acct_b", user_id: "usr_owner", created_at: T },
  ],
  email_answers: [
    {
      account_id: "acct_a",
      normalized_email: "ada@example.com",
      result: emailResult("ada@example.com", "deliverable"),
      created_at: min(1),
    },
    {
      account_id: "acct_a",
      normalized_email: "@example.com",
      result: JSON.stringify({ domain: "example.com", mx: true }),
      created_at: min(2),
    },
    {
      account_id: "acct_a",
      normalized_email: `entity:lei:${LEI}`,
      result: entityResult(LEI, "Example Holdings PLC"),
      created_at: min(3),
    },
    {
      account_id: "acct_a",
      normalized_email: "entity:company_number:GB:00445790",
      result: entityResult("00445790", "TESCO PLC"),
      created_at: min(4),
    },
    {
      account_id: "acct_a",
      normalized_email: "entity@example.com",
      result: emailResult("entity@example.com", "undeliverable"),
      created_at: min(5),
    },
    {
      account_id: "acct_b",
      normalized_email: "bob@example.org",
      result: emailResult("bob@example.org", "risky"),
      created_at: min(6),
    },
    {
      account_id: "acct_b",
      normalized_email: "@example.org",
      result: JSON.stringify({ domain: "example.org", mx: false }),
      created_at: min(7),
    },
    {
      account_id: "acct_b",
      normalized_email: `entity:lei:${LEI}`,
      result: entityResult(LEI, "Example Holdings PLC"),
      created_at: min(8),
    },
  ],
  email_suppressions: [
    {
      id: 3,
      account_id: "acct_a",
      email: "gone@example.com",
      reason: "mailbox_not_found",
      source: "verdict",
      result: emailResult("gone@example.com", "undeliverable"),
      created_at: min(10),
    },
    {
      id: 7,
      account_id: "acct_a",
      email: "optout@example.com",
      reason: "unsubscribed",
      source: "manual",
      result: null,
      created_at: min(11),
    },
    {
      id: 8,
      account_id: "acct_b",
      email: "gone@example.com",
      reason: "complained",
      source: "manual",
      result: null,
      created_at: min(12),
    },
  ],
  email_history: [
    {
      id: 10,
      account_id: "acct_a",
      request_id: "req_1",
      email: "Ada@Example.com",
      normalized_email: "ada@example.com",
      deliverable: "deliverable",
      reason: null,
      credits_used: 1,
      cache_hit: 0,
      suppressed: 0,
      created_at: min(20),
    },
    {
      id: 11,
      account_id: "acct_a",
      request_id: "req_2",
      email: "gone@example.com",
      normalized_email: "gone@example.com",
      deliverable: "undeliverable",
      reason: "mailbox_not_found",
      credits_used: 0,
      cache_hit: 1,
      suppressed: 1,
      created_at: min(21),
    },
    {
      id: 14,
      account_id: "acct_b",
      request_id: "req_3",
      email: "bob+x@example.org",
      normalized_email: "bob@example.org",
      deliverable: "risky",
      reason: "catch_all",
      credits_used: 1,
      cache_hit: 0,
      suppressed: 0,
      created_at: min(22),
    },
  ],
  entity_monitors: [
    {
      id: 4,
      account_id: "acct_a",
      key_id: "key_a",
      name: "Suppliers",
      identifiers: JSON.stringify([LEI, { type: "company_number", country: "GB", identifier: "00445790" }]),
      cadence: "weekly",
      webhook_url: "https://hooks.example.com/a",
      webhook_secret: "whsec_monitor_a",
      webhook_events: "changes",
      webhook_status: "pending",
      webhook_detail: null,
      last_run_at: min(30),
      next_run_at: min(30 + 7 * 1440),
      last_summary: JSON.stringify({
        checked: 2,
        found: 2,
        changed: 1,
        new_baselines: 0,
        credits_used: 2,
        stopped_reason: null,
      }),
      created_at: min(25),
    },
    {
      id: 9,
      account_id: "acct_b",
      key_id: "key_b",
      name: "Customers",
      identifiers: JSON.stringify([LEI]),
      cadence: "monthly",
      webhook_url: "https://hooks.example.org/b",
      webhook_secret: "whsec_monitor_b",
      webhook_events: "all",
      webhook_status: "failed",
      webhook_detail: "HTTP 500 after 3 attempts",
      last_run_at: null,
      next_run_at: min(40),
      last_summary: null,
      created_at: min(26),
    },
    {
      id: 12,
      account_id: "acct_b",
      key_id: "key_b",
      name: "No webhook",
      identifiers: JSON.stringify([{ type: "company_number", country: "GB", identifier: "00445790" }]),
      cadence: "weekly",
      webhook_url: null,
      webhook_secret: null,
      webhook_events: "changes",
      webhook_status: null,
      webhook_detail: null,
      last_run_at: min(31),
      next_run_at: min(31 + 7 * 1440),
      last_summary: JSON.stringify({ checked: 1 }),
      created_at: min(27),
    },
  ],
  entity_baselines: [
    { monitor_id: 4, entry_key: `lei::${LEI}`, answer: observed("Example Holdings PLC"), recorded_at: min(30) },
    {
      monitor_id: 4,
      entry_key: "company_number:GB:00445790",
      answer: observed("TESCO PLC", "dissolved"),
      recorded_at: min(30),
    },
    { monitor_id: 12, entry_key: "company_number:GB:00445790", answer: observed("TESCO PLC"), recorded_at: min(31) },
  ],
  bulk_jobs: [
    {
      id: 5,
      account_id: "acct_a",
      key_id: "key_a",
      product: "email",
      status: "finished",
      total: 3,
      duplicate_count: 0,
      processed: 3,
      counts: emailCounts,
      credits_used: 3,
      stopped_reason: null,
      cancel_requested: 0,
      entries: 3,
      next_entry: 3,
      chunk_offsets: "[0]",
      options: "{}",
      webhook_url: "https://hooks.example.com/jobs",
      webhook_secret: "whsec_job_5",
      webhook_status: "delivered",
      webhook_detail: "HTTP 200",
      webhook_body: jobBody,
      idempotency_key: "idem-5",
      request_hash: "hash5",
      create_response: "{}",
      input_expired: 0,
      created_at: min(50),
      updated_at: min(55),
      finished_at: min(54),
    },
    {
      id: 6,
      account_id: "acct_b",
      key_id: "key_b",
      product: "entity",
      status: "finished",
      total: 2,
      duplicate_count: 1,
      processed: 2,
      counts: "{}",
      credits_used: 1,
      stopped_reason: null,
      cancel_requested: 0,
      entries: 2,
      next_entry: 2,
      chunk_offsets: "[0]",
      options: "{}",
      webhook_url: null,
      webhook_secret: null,
      webhook_status: null,
      webhook_detail: null,
      webhook_body: null,
      idempotency_key: null,
      request_hash: null,
      create_response: null,
      input_expired: 1,
      created_at: min(60),
      updated_at: min(62),
      finished_at: min(61),
    },
  ],
  mailbox_answers: [{ email: "ada@example.com", domain: "example.com", outcome: "accepted", checked_at: min(70) }],
} as const satisfies Record<string, readonly Record<string, unknown>[]>;

const insert = (table: string, row: Record<string, unknown>) => {
  const names = Object.keys(row);
  return db
    .prepare(
      `INSERT INTO \`${table}\` (${names.map((n) => `\`${n}\``).join(", ")})
        VALUES (${names.map(() => "?").join(", ")})`,
    )
    .bind(...names.map((n) => row[n]));
};

describe("migration 0004_shared_engines keeps every row", () => {
  beforeAll(async () => {
    const migrations = env.TEST_MIGRATIONS;
    // Later migrations (0006_ip.sql, ...) apply after these and must keep what 0004 moved.
    expect(migrations.slice(0, 5).map((m) => m.name)).toEqual([
      "0000_init.sql",
      "0001_email.sql",
      "0002_bulk.sql",
      "0003_entity.sql",
      "0004_shared_engines.sql",
    ]);
    await applyD1Migrations(db, migrations.slice(0, 4));
    expect(await tables()).toContain("email_answers");
    await db.batch(
      Object.entries(OLD).flatMap(([table, rows]: [string, readonly Record<string, unknown>[]]) =>
        rows.map((row) => insert(table, row)),
      ),
    );
    await applyD1Migrations(db, migrations);
  });

  it("memberships: 0022 makes whoever holds the account's own address its owner, everyone else a member", async () => {
    expect(await all("SELECT account_id, user_id, role FROM memberships ORDER BY account_id, user_id")).toEqual([
      { account_id: "acct_a", user_id: "usr_member", role: "member" },
      { account_id: "acct_a", user_id: "usr_owner", role: "owner" },
      { account_id: "acct_b", user_id: "usr_owner", role: "member" },
    ]);
  });

  it("records every migration as applied", async () => {
    expect((await all("SELECT name FROM d1_migrations ORDER BY id")).map((r) => r.name)).toEqual(
      env.TEST_MIGRATIONS.map((m) => m.name),
    );
  });

  it(
    "repeats: email keys (addresses and @domain) stay email; entity: keys become product entity without the prefix " +
      "(0012: key version 0)",
    async () => {
      expect(await all("SELECT * FROM repeats ORDER BY account_id, created_at")).toEqual([
        {
          account_id: "acct_a",
          product: "email",
          key: "ada@example.com",
          result: OLD.email_answers[0].result,
          created_at: min(1),
          key_version: 0,
        },
        {
          account_id: "acct_a",
          product: "email",
          key: "@example.com",
          result: OLD.email_answers[1].result,
          created_at: min(2),
          key_version: 0,
        },
        {
          account_id: "acct_a",
          product: "entity",
          key: `lei:${LEI}`,
          result: OLD.email_answers[2].result,
          created_at: min(3),
          key_version: 0,
        },
        {
          account_id: "acct_a",
          product: "entity",
          key: "company_number:GB:00445790",
          result: OLD.email_answers[3].result,
          created_at: min(4),
          key_version: 0,
        },
        {
          account_id: "acct_a",
          product: "email",
          key: "entity@example.com",
          result: OLD.email_answers[4].result,
          created_at: min(5),
          key_version: 0,
        },
        {
          account_id: "acct_b",
          product: "email",
          key: "bob@example.org",
          result: OLD.email_answers[5].result,
          created_at: min(6),
          key_version: 0,
        },
        {
          account_id: "acct_b",
          product: "email",
          key: "@example.org",
          result: OLD.email_answers[6].result,
          created_at: min(7),
          key_version: 0,
        },
        {
          account_id: "acct_b",
          product: "entity",
          key: `lei:${LEI}`,
          result: OLD.email_answers[7].result,
          created_at: min(8),
          key_version: 0,
        },
      ]);
    },
  );

  it("suppressions: product email, ids, sources and results kept; new ids continue after the copied ones", async () => {
    expect(await all("SELECT * FROM suppressions ORDER BY id")).toEqual([
      {
        id: 3,
        account_id: "acct_a",
        product: "email",
        key: "gone@example.com",
        reason: "mailbox_not_found",
        source: "verdict",
        result: OLD.email_suppressions[0].result,
        created_at: min(10),
        key_version: 0,
      },
      {
        id: 7,
        account_id: "acct_a",
        product: "email",
        key: "optout@example.com",
        reason: "unsubscribed",
        source: "manual",
        result: null,
        created_at: min(11),
        key_version: 0,
      },
      {
        id: 8,
        account_id: "acct_b",
        product: "email",
        key: "gone@example.com",
        reason: "complained",
        source: "manual",
        result: null,
        created_at: min(12),
        key_version: 0,
      },
    ]);
    const next = await db
      .prepare(
        "INSERT INTO suppressions (account_id, product, key, reason, source, result, created_at) VALUES ('acct_a', " +
          "'email', 'new@example.com', 'x', 'manual', NULL, 1) RETURNING id",
      )
      .first<{ id: number }>();
    expect(next?.id).toBe(9);
  });

  it("history: product email, ids kept, email -> value, normalized_email -> key, deliverable -> verdict", async () => {
    expect(await all("SELECT * FROM history ORDER BY id")).toEqual([
      {
        id: 10,
        account_id: "acct_a",
        product: "email",
        request_id: "req_1",
        value: "Ada@Example.com",
        key: "ada@example.com",
        verdict: "deliverable",
        reason: null,
        credits_used: 1,
        cache_hit: 0,
        suppressed: 0,
        created_at: min(20),
      },
      {
        id: 11,
        account_id: "acct_a",
        product: "email",
        request_id: "req_2",
        value: "gone@example.com",
        key: "gone@example.com",
        verdict: "undeliverable",
        reason: "mailbox_not_found",
        credits_used: 0,
        cache_hit: 1,
        suppressed: 1,
        created_at: min(21),
      },
      {
        id: 14,
        account_id: "acct_b",
        product: "email",
        request_id: "req_3",
        value: "bob+x@example.org",
        key: "bob@example.org",
        verdict: "risky",
        reason: "catch_all",
        credits_used: 1,
        cache_hit: 0,
        suppressed: 0,
        created_at: min(22),
      },
    ]);
  });

  it("monitors: product entity, identifiers -> entries, ids, secrets, cadence, schedule and summary kept", async () => {
    const [m4, m9, m12] = OLD.entity_monitors;
    const copied = (m: Record<string, unknown>) => ({
      id: m.id,
      account_id: m.account_id,
      key_id: m.key_id,
      product: "entity",
      name: m.name,
      entries: m.identifiers,
      cadence: m.cadence,
      webhook_url: m.webhook_url,
      webhook_secret: m.webhook_secret,
      webhook_events: m.webhook_events,
      last_run_at: m.last_run_at,
      next_run_at: m.next_run_at,
      last_summary: m.last_summary,
      created_at: m.created_at,
      // 0018 adds alert_emails, off for every monitor that existed before it.
      alert_emails: 0,
      // 0021 adds the product's own monitor options, none for monitors that existed before it.
      options: null,
    });
    expect(await all("SELECT * FROM monitors ORDER BY id")).toEqual([copied(m4), copied(m9), copied(m12)]);
    expect(await all("SELECT * FROM monitors ORDER BY id")).toEqual([
      expect.objectContaining({
        id: 4,
        webhook_secret: "whsec_monitor_a",
        cadence: "weekly",
        next_run_at: min(30 + 7 * 1440),
      }),
      expect.objectContaining({
        id: 9,
        webhook_secret: "whsec_monitor_b",
        cadence: "monthly",
        next_run_at: min(40),
        last_summary: null,
      }),
      expect.objectContaining({ id: 12, webhook_secret: null, webhook_url: null }),
    ]);
  });

  it("monitor_baselines: every baseline kept", async () => {
    expect(await all("SELECT * FROM monitor_baselines ORDER BY monitor_id, entry_key")).toEqual([
      {
        monitor_id: 4,
        entry_key: "company_number:GB:00445790",
        answer: OLD.entity_baselines[1].answer,
        recorded_at: min(30),
      },
      { monitor_id: 4, entry_key: `lei::${LEI}`, answer: OLD.entity_baselines[0].answer, recorded_at: min(30) },
      {
        monitor_id: 12,
        entry_key: "company_number:GB:00445790",
        answer: OLD.entity_baselines[2].answer,
        recorded_at: min(31),
      },
    ]);
  });

  it(
    "webhook_deliveries: the finished job's frozen body and status, and each monitor's status (pending -> " +
      "failed); 0028 keeps every body in its row (body_key null)",
    async () => {
      expect(await all("SELECT * FROM webhook_deliveries ORDER BY id")).toEqual([
        {
          id: 1,
          owner: "job",
          owner_id: "5",
          event: "bulk_email_job.finished",
          url: "https://hooks.example.com/jobs",
          secret: "whsec_job_5",
          body: jobBody,
          body_key: null,
          status: "delivered",
          detail: "HTTP 200",
          attempts: 0,
          created_at: min(54),
          updated_at: min(55),
        },
        {
          id: 2,
          owner: "monitor",
          owner_id: "4",
          event: "entity_monitor.run",
          url: "https://hooks.example.com/a",
          secret: "whsec_monitor_a",
          body: "",
          body_key: null,
          status: "failed",
          detail: "Interrupted by an upgrade",
          attempts: 0,
          created_at: min(30),
          updated_at: min(30),
        },
        {
          id: 3,
          owner: "monitor",
          owner_id: "9",
          event: "entity_monitor.run",
          url: "https://hooks.example.org/b",
          secret: "whsec_monitor_b",
          body: "",
          body_key: null,
          status: "failed",
          detail: "HTTP 500 after 3 attempts",
          attempts: 0,
          created_at: min(26),
          updated_at: min(26),
        },
      ]);
    },
  );

  it("the new tables that nothing was copied into start empty", async () => {
    expect(await all("SELECT * FROM feedback")).toEqual([]);
  });

  it("drops the old tables", async () => {
    const now = await tables();
    for (const gone of ["email_answers", "email_suppressions", "email_history", "entity_monitors", "entity_baselines"])
      expect(now).not.toContain(gone);
    for (const kept of [
      "repeats",
      "suppressions",
      "history",
      "monitors",
      "monitor_baselines",
      "webhook_deliveries",
      "feedback",
      "bulk_jobs",
      "mailbox_answers",
    ]) {
      expect(now).toContain(kept);
    }
  });

  it(
    "bulk_jobs loses webhook_status, webhook_detail and webhook_body but keeps its rows and other columns; 0027 " +
      "marks a run finished before it as mailed; 0031 numbers each account's runs in the order they were made",
    async () => {
      const oldColumns = Object.keys(OLD.bulk_jobs[0]);
      const dropped: string[] = ["webhook_status", "webhook_detail", "webhook_body"];
      expect(await columns("bulk_jobs")).toEqual([
        ...oldColumns.filter((c) => !dropped.includes(c)),
        "finished_mail_at",
        "suppressed_added",
        "account_run",
      ]);
      // Its finish was handled by the code of its day: the recovery sweep must not mail it again.
      const runNumber = (row: Record<string, unknown>) =>
        OLD.bulk_jobs.filter((r) => r.account_id === row.account_id && Number(r.id) <= Number(row.id)).length;
      const migrated = (row: Record<string, unknown>) => ({
        ...Object.fromEntries(Object.entries(row).filter(([c]) => !dropped.includes(c))),
        finished_mail_at: row.finished_at,
        suppressed_added: 0,
        account_run: runNumber(row),
      });
      expect(await all("SELECT * FROM bulk_jobs ORDER BY id")).toEqual(OLD.bulk_jobs.map(migrated));
    },
  );

  it("leaves mailbox_answers' rows unchanged; 0014 adds catch_all, unknown (null) for them", async () => {
    expect(await columns("mailbox_answers")).toEqual(["email", "domain", "outcome", "checked_at", "catch_all"]);
    expect(await all("SELECT * FROM mailbox_answers")).toEqual(
      OLD.mailbox_answers.map((row) => ({ ...row, catch_all: null })),
    );
  });
});
