/**
 * The guide's migration step (docs/adding-a-product.md, step 2) followed for the test-only product: `db:generate`
 * with the project's drizzle config, against a copy of migrations/, writes nothing for the Worker's own tables (the
 * snapshot chain in migrations/meta is current) and, with the product's tables.ts added, exactly the migration the
 * test build applies (test/fixtures/products/specimen/migrations/specimen.sql): its tables and nothing else.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";
import addressConfig from "../../../drizzle.address.config";
import config from "../../../drizzle.config";

const ROOT = resolve(import.meta.dirname, "../../..");
const FIXTURE = join(ROOT, "test/fixtures/products/specimen");
const work = mkdtempSync(join(tmpdir(), "specimen-migration-"));
cpSync(join(ROOT, "migrations"), join(work, "migrations"), { recursive: true });
cpSync(join(ROOT, "migrations-address"), join(work, "migrations-address"), { recursive: true });
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `npm run db:generate -- --name <name>` with the project's schema globs (and any added), writing into the copy. */
function generate(
  name: string,
  extraSchema: string[] = [],
  { schema: files, out } = { ...config, out: "./migrations" },
) {
  const schema = [...[files ?? []].flat(), ...extraSchema].map((glob) => join(ROOT, glob));
  writeFileSync(join(work, "drizzle.json"), JSON.stringify({ dialect: config.dialect, schema, out }));
  const kit = join(ROOT, "node_modules/.bin/drizzle-kit");
  return execFileSync(kit, ["generate", "--config", "drizzle.json", "--name", name], { cwd: work, encoding: "utf8" });
}

const sqlFiles = () => readdirSync(join(work, "migrations")).filter((f) => f.endsWith(".sql"));

it("writes nothing for the Worker's own tables: the last snapshot is current", () => {
  const before = sqlFiles();
  expect(generate("nothing")).toContain("No schema changes");
  expect(sqlFiles()).toEqual(before);
}, 60_000);

it("writes nothing for the address database's tables (drizzle.address.config.ts, migrations-address/)", () => {
  const before = readdirSync(join(work, "migrations-address"));
  expect(generate("nothing", [], { ...addressConfig, out: "./migrations-address" })).toContain("No schema changes");
  expect(readdirSync(join(work, "migrations-address"))).toEqual(before);
}, 60_000);

it("writes the product's tables alone, as the migration the test build applies", () => {
  const before = sqlFiles();
  generate("specimen", ["test/fixtures/products/*/tables.ts"]);
  const added = sqlFiles().filter((f) => !before.includes(f));
  const journal = JSON.parse(readFileSync(join(work, "migrations/meta/_journal.json"), "utf8")) as {
    entries: { idx: number; tag: string }[];
  };
  expect(added).toEqual([`${journal.entries.at(-1)!.tag}.sql`]);
  expect(journal.entries.at(-1)!.tag).toMatch(/^\d{4}_specimen$/);
  const sql = readFileSync(join(work, "migrations", added[0]!), "utf8");
  expect([...sql.matchAll(/CREATE TABLE `(\w+)`/g)].map((m) => m[1])).toEqual(["specimen_roots"]);
  expect(sql).not.toMatch(/ALTER TABLE|DROP TABLE|CREATE INDEX/);
  expect(sql).toBe(readFileSync(join(FIXTURE, "migrations/specimen.sql"), "utf8"));
}, 60_000);
