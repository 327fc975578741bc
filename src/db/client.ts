import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

const make = (db: D1Database) => drizzle(db, { schema });

export type Database = ReturnType<typeof make>;

/** One drizzle instance per D1 binding (the schema's relational config is built once per isolate, not per request). */
const instances = new WeakMap<D1Database, Database>();

export function database(env: Env): Database {
  let db = instances.get(env.DB);
  if (!db) instances.set(env.DB, (db = make(env.DB)));
  return db;
}
