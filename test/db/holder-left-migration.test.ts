import { applyD1Migrations, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * migrations/0036_holder_left.sql: keys revoked because their holder left (by 0035, by a dashboard removal or an
 * invitation of a detached holder since) are marked "holder left" at that instant (403, not 401; the revocation stays
 * for the release before), and keys of members who were removed, invited again and accepted before 0035 (working
 * again) are marked too; keys a person revoked, keys the operator detached and keys of the current membership stay as
 * they were. An empty database is migrated to 0034, filled as the old code left it, migrated through 0035, changed as
 * the code of 0035's release would, then to 0036.
 */
const db = env.MIGRATION_DB;
const T = Date.now() - 30 * 86_400_000;
const min = (n: number) => T + n * 60_000 + 7;
const run = (sql: string, ...params: unknown[]) =>
  db
    .prepare(sql)
    .bind(...params)
    .run();
const upTo = (name: string) => env.TEST_MIGRATIONS.slice(0, env.TEST_MIGRATIONS.findIndex((m) => m.name === name) + 1);

const member = (user: string, createdAt: number, acceptedAt: number | null) =>
  run(
    "INSERT INTO memberships (account_id, user_id, role, created_at, accepted_at) VALUES ('acct', ?, 'member', ?, ?)",
    user,
    createdAt,
    acceptedAt,
  );
const key = (id: string, user: string | null, createdAt: number, revokedAt: number | null = null) =>
  run(
    "INSERT INTO api_keys (id, account_id, user_id, kind, key_hash, hint, created_at, revoked_at) " +
      "VALUES (?, 'acct', ?, 'secret', ?, 'sk_live_...', ?, ?)",
    id,
    user,
    `hash-${id}`,
    createdAt,
    revokedAt,
  );
const leave = (user: string) => run("DELETE FROM memberships WHERE account_id = 'acct' AND user_id = ?", user);
/** What the removal of 0035's release did: revoke the member's live keys, delete the membership. */
const dashboardRemoval = async (user: string, now: number) => {
  await run("UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL", now, user);
  await leave(user);
};

let v: number;
let after: number;
const keys = new Map<string, { revoked_at: number | null; holder_left_at: number | null }>();

beforeAll(async () => {
  await applyD1Migrations(db, upTo("0034_address_database.sql"));
  await run(
    "INSERT INTO accounts (id, email, email_verified, created_at) VALUES ('acct', 'owner@example.com', 1, ?)",
    T,
  );
  for (const user of ["u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "u10", "u11"])
    await run("INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)", user, `${user}@example.com`, T);
  // Before 0035, removals deleted the membership only.
  await member("u1", T, T); // removed, still gone
  await key("k1", "u1", min(1));
  await leave("u1");
  await member("u2", T, T); // removed, invited again, pending at 0035 (accepted after it)
  await key("k2", "u2", min(1));
  await leave("u2");
  await member("u2", min(2), null);
  await key("k3", "u3", min(1)); // removed, invited again and accepted before 0035: k3 works again today
  await member("u3", min(2), min(3));
  await key("k3-new", "u3", min(4));
  await key("k4", "u4", min(1)); // the operator detached and added back (accepted at once): k4 works again
  await member("u4", min(2), min(2));
  await member("u5", T, T); // a member who revoked their own key
  await key("k5", "u5", min(1), min(2));
  for (const user of ["u6", "u7", "u8", "u9"]) await member(user, T, T);
  await key("k6", "u6", min(1));
  await key("k7", "u7", min(1));
  await key("k7-revoked", "u7", min(2), min(3));
  await key("k8", "u8", min(1));
  await key("k9", "u9", min(1));
  await key("k10", null, min(1), min(5)); // a key held by nobody, revoked
  // Removed, invited again; an owner revoked the old key meanwhile, at a whole second (before 0035 was written).
  await member("u10", T, T);
  await key("k11", "u10", min(1), Math.floor(min(4) / 1000) * 1000);
  await leave("u10");
  await member("u10", min(3), null);
  // An owner revoked a member's only key, then the member was removed (before 0035: no revocation of its own).
  await member("u11", T, T);
  await key("k12", "u11", min(1), min(2));
  await leave("u11");
  await applyD1Migrations(db, upTo("0035_removed_member_keys.sql"));
  v = (await db.prepare("SELECT revoked_at FROM api_keys WHERE id = 'k1'").first<{ revoked_at: number }>())!.revoked_at;
  // The code of 0035's release, afterwards.
  after = Date.now() + 5_007;
  await run("UPDATE memberships SET accepted_at = ? WHERE user_id = 'u2'", after);
  await leave("u6"); // the operator detached u6: no revocation
  await dashboardRemoval("u7", after + 1_000);
  await dashboardRemoval("u8", after + 2_000);
  await member("u8", after + 3_000, after + 4_000);
  await key("k8-new", "u8", after + 5_000);
  await leave("u9"); // detached by the operator, then invited on the dashboard: the invitation revoked k9
  await run("UPDATE api_keys SET revoked_at = ? WHERE user_id = 'u9'", after + 6_000);
  await member("u9", after + 6_000, null);
  await applyD1Migrations(db, env.TEST_MIGRATIONS);
  const rows = await db.prepare("SELECT id, revoked_at, holder_left_at FROM api_keys").all<{ id: string } & Row>();
  for (const { id, ...row } of rows.results) keys.set(id, row);
});

type Row = { revoked_at: number | null; holder_left_at: number | null };
/** Revoked because the holder left: 0036 records the departure at that instant and keeps the revocation. */
const departed = (at: number): Row => ({ revoked_at: at, holder_left_at: at });
const left = (at: number): Row => ({ revoked_at: null, holder_left_at: at });
const revoked = (at: number): Row => ({ revoked_at: at, holder_left_at: null });
const live: Row = { revoked_at: null, holder_left_at: null };

describe("migration 0036: keys whose holder left", () => {
  it("0035 revoked the removed holders' keys at one whole second", () => {
    expect(v % 1000).toBe(0);
    expect(v).toBeLessThan(after);
  });

  it("marks the keys 0035 revoked as holder-left keys, whether or not the holder came back since", () => {
    expect([keys.get("k1"), keys.get("k2")]).toEqual([departed(v), departed(v)]);
  });

  it("marks the keys of members invited back and accepted before 0035, not the keys of their new membership", () => {
    expect([keys.get("k3"), keys.get("k3-new")]).toEqual([left(min(2)), live]);
  });

  it("marks the keys a dashboard removal or invitation revoked as holder-left keys", () => {
    expect([keys.get("k7"), keys.get("k8"), keys.get("k9")]).toEqual([
      departed(after + 1_000),
      departed(after + 2_000),
      departed(after + 6_000),
    ]);
    expect(keys.get("k8-new")).toEqual(live);
  });

  it("leaves keys a person revoked, keys the operator detached or added back, and keys of no holder", () => {
    const ids = ["k4", "k5", "k6", "k7-revoked", "k10", "k11", "k12"];
    expect(ids.map((id) => keys.get(id))).toEqual([
      live,
      revoked(min(2)),
      live,
      revoked(min(3)),
      revoked(min(5)),
      revoked(Math.floor(min(4) / 1000) * 1000),
      revoked(min(2)),
    ]);
  });
});
