import type { TableFamily } from "./table-family";

export type { TableFamily };

/**
 * Which D1 database a family of tables lives in. A D1 database holds at most 10 GB, and all reference data together
 * passed the 60 % of it reference data may take (docs/operations.md, "Capacity"): the address reference data (the
 * address tables and their autocomplete index) has a database of its own, `REFERENCE_ADDRESS`
 * (migrations-address/). Everything else, the account data and the other reference data, is `DB` (migrations/), and
 * so is the bookkeeping of every dataset (`datasets`,
 * `dataset_generations`, `dataset_refresh`): a refresh writes an address generation's rows into `REFERENCE_ADDRESS`
 * and switches to it in `DB` (the one batch that lists it) only a replica's lag after its last rows, so answers do not
 * read a half-written one (src/engines/datasets/handover.ts, `switchDelaySeconds`).
 */
export function databaseOf(env: Env, family: TableFamily): D1Database {
  return family === "address" ? env.REFERENCE_ADDRESS : env.DB;
}
