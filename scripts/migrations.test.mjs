// The one-batch local migrations (scripts/lib/migrations.mjs, applyMigrations in scripts/lib/local.mjs): what is
// pending, the batch's bookkeeping, and that wrangler's own command then finds nothing left to apply.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, applyMigrations, runWrangler } from "./lib/local.mjs";
import { appliedMigrations, migrationBatch, migrationFiles, pendingMigrations } from "./lib/migrations.mjs";
import { DatabaseSync } from "./lib/sqlite.mjs";

const DIR = join(ROOT, "migrations");
const ADDRESS_DIR = join(ROOT, "migrations-address");
const work = mkdtempSync(join(tmpdir(), "migrations-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A persistence directory holding one local D1 file, as miniflare lays them out. */
function stateWithFile(name) {
  const d1 = join(work, name, "v3", "d1", "miniflare-D1DatabaseObject");
  mkdirSync(d1, { recursive: true });
  return { persistTo: join(work, name), file: join(d1, "0123abcd.sqlite") };
}

describe("local D1 migrations in one batch", () => {
  it("orders files as wrangler does: by leading number, then by name", () => {
    const dir = join(work, "order");
    mkdirSync(dir);
    for (const name of ["10_b.sql", "9_a.sql", "0002_x.sql", "notes.sql", "0002_a.sql", "readme.md"])
      writeFileSync(join(dir, name), "");
    expect(migrationFiles(dir)).toEqual(["0002_a.sql", "0002_x.sql", "9_a.sql", "10_b.sql", "notes.sql"]);
    expect(migrationFiles(DIR)[0]).toBe("0000_init.sql");
  });

  it("applies what is pending and records each file as wrangler does", () => {
    const all = migrationFiles(DIR);
    expect(pendingMigrations({ persistTo: join(work, "none"), dir: DIR })).toEqual(all);
    const { persistTo, file } = stateWithFile("partial");
    const db = new DatabaseSync(file);
    db.exec(migrationBatch(all.slice(0, 3), DIR));
    expect(pendingMigrations({ persistTo, dir: DIR })).toEqual(all.slice(3));
    db.exec(migrationBatch(all.slice(3), DIR));
    db.close();
    expect(pendingMigrations({ persistTo, dir: DIR })).toEqual([]);
    expect(appliedMigrations(file)).toEqual(all);
  });

  it("leaves the decision to wrangler when a local database without migrations may be this directory's", () => {
    const { persistTo, file } = stateWithFile("several");
    new DatabaseSync(file).close();
    new DatabaseSync(file.replace("0123abcd", "4567ef01")).close();
    expect(pendingMigrations({ persistTo, dir: DIR })).toBeNull();
  });

  it("tells each binding's local database by the migrations it recorded (DB's and REFERENCE_ADDRESS's)", () => {
    const { persistTo, file } = stateWithFile("two");
    const main = new DatabaseSync(file);
    main.exec(migrationBatch(migrationFiles(DIR).slice(0, 2), DIR));
    main.close();
    expect(pendingMigrations({ persistTo, dir: DIR })).toEqual(migrationFiles(DIR).slice(2));
    expect(pendingMigrations({ persistTo, dir: ADDRESS_DIR })).toEqual(migrationFiles(ADDRESS_DIR));
    const address = new DatabaseSync(file.replace("0123abcd", "4567ef01"));
    address.exec(migrationBatch(migrationFiles(ADDRESS_DIR), ADDRESS_DIR));
    address.close();
    expect(pendingMigrations({ persistTo, dir: ADDRESS_DIR })).toEqual([]);
    expect(pendingMigrations({ persistTo, dir: DIR })).toEqual(migrationFiles(DIR).slice(2));
  });

  it("leaves nothing for `wrangler d1 migrations apply` to do", { timeout: 60_000 }, async () => {
    const persistTo = join(work, "wrangler");
    expect((await applyMigrations({ persistTo, quiet: true })).applied).toEqual([
      ...migrationFiles(DIR),
      ...migrationFiles(ADDRESS_DIR),
    ]);
    expect(readdirSync(join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject"))).toContain("metadata.sqlite");
    for (const binding of ["DB", "REFERENCE_ADDRESS"]) {
      const again = await runWrangler(["d1", "migrations", "apply", binding, "--local", "--persist-to", persistTo], {
        quiet: true,
      });
      expect(again).toMatch(/No migrations to apply/);
    }
    expect((await applyMigrations({ persistTo, quiet: true })).applied).toEqual([]);
  });
});
