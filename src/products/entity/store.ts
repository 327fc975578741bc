import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { chunks, MAX_PARAMS } from "../../db/chunks";
import type { Database } from "../../db/client";
import { readCoverage, type Listing } from "../../db/coverage";
import { deleteInChunks, installDataset, uninstallDataset, type Dataset } from "../../db/datasets";
import { datasets } from "../../db/schema";
import { datasetGenerations, REGISTER_KEY, registerEntities } from "./tables";
import { REGISTER_NAMES, type RegisterName, type RegisterRow } from "./registers";

/**
 * What the entity product keeps in D1: register rows (`register_entities`) and which registers are installed
 * (`datasets`). Repeat markers are the engines' (src/engines/repeats).
 * D1 allows 100 bound parameters per statement, which sizes every chunk below.
 */

export interface InstalledRegister extends Dataset {
  name: RegisterName;
}

/** Registers with a `datasets` row: a register whose import never completed is not installed. */
export async function installedRegisters(db: Database): Promise<Map<RegisterName, InstalledRegister>> {
  const rows = await db
    .select()
    .from(datasets)
    .where(inArray(datasets.name, [...REGISTER_NAMES]));
  return new Map(
    rows.map((r) => [
      r.name as RegisterName,
      { ...r, name: r.name as RegisterName, coverage: readCoverage(r.coverage) },
    ]),
  );
}

export interface StoredEntity extends RegisterRow {
  /** Status of the record `linked_register`/`linked_identifier` point to, when that register holds it. */
  linked_status: string | null;
}

const linked = alias(registerEntities, "linked");

/**
 * The generation answers read of the register a column names: its `dataset_generations` row, else 0 (manual imports).
 */
const activeOf = (register: SQL) => sql`coalesce((SELECT active FROM dataset_generations WHERE name = ${register}), 0)`;

/** The stored rows of one register for these identifiers (register spelling), with their linked record's status. */
export async function findEntities(
  db: Database,
  register: RegisterName,
  identifiers: string[],
): Promise<Map<string, StoredEntity>> {
  const found = new Map<string, StoredEntity>();
  const parts = chunks([...new Set(identifiers)], MAX_PARAMS - 10);
  const results = await Promise.all(
    parts.map((part) =>
      db
        .select({ entity: registerEntities, linkedStatus: linked.status })
        .from(registerEntities)
        .leftJoin(
          linked,
          and(
            eq(linked.register, registerEntities.linkedRegister),
            eq(linked.identifier, registerEntities.linkedIdentifier),
            // The generation of the register the row points to, from the row itself: one computed from the linked
            // row's own column could not bound the search, which then read every row of that register.
            eq(linked.generation, activeOf(sql`${registerEntities.linkedRegister}`)),
          ),
        )
        .where(
          and(
            eq(registerEntities.register, register),
            eq(registerEntities.generation, activeOf(sql`${register}`)),
            inArray(registerEntities.identifier, part),
          ),
        ),
    ),
  );
  for (const { entity: e, linkedStatus } of results.flat()) {
    found.set(e.identifier, {
      identifier: e.identifier,
      name: e.name,
      status: e.status,
      status_detail: e.statusDetail,
      country: e.country,
      registration_status: e.registrationStatus,
      linked_register: e.linkedRegister,
      linked_identifier: e.linkedIdentifier,
      linked_status: linkedStatus,
    });
  }
  return found;
}

const ROW_COLUMNS = 10;

/**
 * Inserts or replaces rows of one register in the generation answers read (the operator's import, upserting in place):
 * multi-row statements of 9 rows (90 parameters), all in one D1 batch.
 */
export async function upsertRows(db: Database, register: RegisterName, rows: RegisterRow[]): Promise<void> {
  const active = await db
    .select({ active: datasetGenerations.active })
    .from(datasetGenerations)
    .where(eq(datasetGenerations.name, register));
  const generation = active[0]?.active ?? 0;
  const statements = chunks(rows, Math.floor(MAX_PARAMS / ROW_COLUMNS)).map((part) =>
    db
      .insert(registerEntities)
      .values(
        part.map((r) => ({
          register,
          generation,
          identifier: r.identifier,
          name: r.name,
          status: r.status,
          statusDetail: r.status_detail,
          country: r.country,
          registrationStatus: r.registration_status,
          linkedRegister: r.linked_register,
          linkedIdentifier: r.linked_identifier,
        })),
      )
      .onConflictDoUpdate({
        target: [registerEntities.register, registerEntities.generation, registerEntities.identifier],
        set: {
          name: sql`excluded.name`,
          status: sql`excluded.status`,
          statusDetail: sql`excluded.status_detail`,
          country: sql`excluded.country`,
          registrationStatus: sql`excluded.registration_status`,
          linkedRegister: sql`excluded.linked_register`,
          linkedIdentifier: sql`excluded.linked_identifier`,
        },
      }),
  );
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

/** Marks a register installed at `version` (the publication date of the file loaded): `/status/data` lists it. */
export async function completeImport(
  db: Database,
  register: RegisterName,
  listing: Listing,
): Promise<InstalledRegister> {
  return { ...(await installDataset(db, register, listing)), name: register };
}

/**
 * Uninstalls a register at once (its `datasets` row goes first, so answers say `register_not_installed` from then on)
 * and deletes its rows in chunks until none are left or `budgetMs` has passed; `done` false asks the caller to repeat.
 */
export async function removeRegister(
  db: Database,
  register: RegisterName,
  budgetMs: number,
): Promise<{ deleted: number; done: boolean }> {
  await uninstallDataset(db, register);
  await db.delete(datasetGenerations).where(eq(datasetGenerations.name, register));
  return deleteInChunks(db, { name: "register_entities", key: REGISTER_KEY }, sql`register = ${register}`, budgetMs);
}
