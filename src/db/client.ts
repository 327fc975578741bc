import { drizzle } from "drizzle-orm/d1";
import { databaseOf, type TableFamily } from "./reference";

/**
 * The query builder only: nothing uses drizzle's relational queries (`db.query`), and building their config walks the
 * whole schema, which a replica session (a new D1 object per request) would pay on every read.
 */
const make = (db: D1Database) => drizzle(db);

export type Database = ReturnType<typeof make>;

/** One drizzle instance per D1 binding, built once per isolate. */
const instances = new WeakMap<D1Database, Database>();

/** The env each drizzle instance was last handed out for: list helpers that take a `Database` reach the objects. */
const bindings = new WeakMap<Database, Env>();

export function database(env: Env): Database {
  return familyDatabase(env, "main");
}

/** The drizzle instance of the database a family of tables lives in (src/db/reference.ts). */
export function familyDatabase(env: Env, family: TableFamily): Database {
  const d1 = databaseOf(env, family);
  let db = instances.get(d1);
  if (!db) instances.set(d1, (db = make(d1)));
  bindings.set(db, env);
  return db;
}

/**
 * The env behind a `Database` from `database(env)`. The account's lists live in its Durable Object now, and their
 * helpers keep the `db` first parameter their callers (routes, dashboard pages) already pass.
 */
export function envOf(db: Database): Env {
  const env = bindings.get(db);
  if (!env) throw new Error("database() was not called for this Database");
  return env;
}

/**
 * `env` with each D1 database behind a Sessions API session (`withSession("first-unconstrained")`): its reads may be
 * answered by a read replica near the caller, its writes go to the primary, and a read after a write in the same
 * session sees it.
 * For reads that may lag the primary by replication delay: datasets and shared answers, never money or per-account
 * state a request must see at once (repeats, suppressions, keys). The session has `prepare` and `batch`, all that
 * drizzle and the products call.
 */
export function replicaReads(env: Env): Env {
  const sessions = new Map<string | symbol, D1Database>();
  const session = (key: "DB" | "REFERENCE_ADDRESS") =>
    sessions.get(key) ??
    sessions.set(key, env[key].withSession("first-unconstrained") as unknown as D1Database).get(key)!;
  return new Proxy(env, {
    get: (target, key) => (key === "DB" || key === "REFERENCE_ADDRESS" ? session(key) : Reflect.get(target, key)),
  });
}
