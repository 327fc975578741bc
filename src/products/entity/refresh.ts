import { headerIndexes } from "../../../datasets/registers/csv.mjs";
import { activateGeneration, beginGeneration, currentGeneration } from "../../db/generations";
import type { GenerationTable, RefreshableDataset, RowReader } from "../../engines/datasets/refreshable";
import { REGISTERS, type RegisterName, type RegisterRow } from "./registers";
import { REGISTER_KEY } from "./tables";

/**
 * The company registers the scheduled refresh keeps current (src/engines/datasets/refreshable.ts): the publisher's bulk
 * file read by the register's own `parseRow` (as scripts/import-register.mjs reads it), written into a new generation
 * of `register_entities` beside the one answers read (`dataset_generations.active`), switched to in one batch.
 */
function registerTable(name: RegisterName): GenerationTable<RegisterRow> {
  return {
    current: (db) => currentGeneration(db, name),
    begin: (db) => beginGeneration(db, name),
    insert: (db, generation, rows) => [
      db
        .prepare(
          `INSERT INTO register_entities (register, generation, identifier, name, status, status_detail, country,
           registration_status, linked_register, linked_identifier) SELECT ?1, ?2, value ->> '$.identifier',
             value ->> '$.name', value ->> '$.status', value ->> '$.status_detail', value ->> '$.country',
               value ->> '$.registration_status', value ->> '$.linked_register', value ->> '$.linked_identifier'
           FROM json_each(?3) WHERE true ${UPSERT_COLUMNS}`,
        )
        .bind(name, generation, JSON.stringify(rows)),
    ],
    // The register is listed with what the file covers (src/db/coverage.ts), as an operator's import records it.
    activate: (db, activation) => activateGeneration(db, name, activation),
    // Rows of generations neither read nor being written; a delta's (negative) generations are its own sweep's.
    sweep: (db, budgetMs) =>
      sweepRows(
        db
          .prepare(
            `DELETE FROM register_entities WHERE (${REGISTER_KEY}) IN (
             SELECT ${REGISTER_KEY} FROM register_entities WHERE register = ?1 AND generation >= 0
               AND generation IS NOT coalesce((SELECT active FROM dataset_generations WHERE name = ?1), 0)
               AND generation IS NOT (SELECT staging FROM dataset_generations WHERE name = ?1)
             LIMIT ?2)`,
          )
          .bind(name, SWEEP_CHUNK),
        budgetMs,
      ),
  };
}

const SWEEP_CHUNK = 20_000;

/**
 * Runs a DELETE of at most SWEEP_CHUNK rows until it deletes fewer or `budgetMs` has passed (`done` false: call again).
 */
async function sweepRows(
  statement: D1PreparedStatement,
  budgetMs: number,
): Promise<{ deleted: number; done: boolean }> {
  const started = Date.now();
  let deleted = 0;
  for (;;) {
    const changes = (await statement.run()).meta.changes ?? 0;
    deleted += changes;
    if (changes < SWEEP_CHUNK) return { deleted, done: true };
    if (Date.now() - started > budgetMs) return { deleted, done: false };
  }
}

const UPSERT_COLUMNS =
  `ON CONFLICT (register, generation, identifier) DO UPDATE SET name = excluded.name, status = ` +
  `excluded.status,
  status_detail = excluded.status_detail, country = excluded.country, registration_status = ` +
  `excluded.registration_status,
  linked_register = excluded.linked_register, linked_identifier = excluded.linked_identifier`;

/**
 * A register's delta files (GLEIF publishes, with each golden copy, the records that changed since the previous one):
 * the delta's rows are imported like a file, into a negative generation of the register's rows (its own counter,
 * `dataset_generations` row `<register>-delta`), and applied to the generation answers read by one INSERT ... SELECT,
 * so answers see the whole delta or none of it. The register's version becomes the delta's publication date.
 */
function deltaTable(name: RegisterName): GenerationTable<RegisterRow> {
  const full = registerTable(name);
  const counter = `${name}-delta`;
  return {
    // No ratio bound: a delta's size says nothing about the register's.
    current: async () => null,
    async begin(db) {
      const row = await db
        .prepare(
          `INSERT INTO dataset_generations (name, active, staging) VALUES (?1, 1, -1)
           ON CONFLICT (name) DO UPDATE SET active = active + 1, staging = -(active + 1) RETURNING staging`,
        )
        .bind(counter)
        .first<{ staging: number }>();
      return row!.staging;
    },
    insert: full.insert,
    // The register keeps its own coverage: a delta changes records of the file it applies to, not what that file
    // covers.
    activate: (db, { generation, version, now }) => [
      db
        .prepare("UPDATE dataset_generations SET staging = NULL WHERE name = ?1 AND staging = ?2")
        .bind(counter, generation),
      // Only onto an installed register (a delta alone is not a register) whose file is not newer than the delta (its
      // changes are in it already, and older records would undo later ones).
      db
        .prepare(
          `INSERT INTO register_entities (register, generation, identifier, name, status, status_detail, country,
           registration_status, linked_register, linked_identifier) SELECT register, coalesce((SELECT active
             FROM dataset_generations WHERE name = ?1), 0), identifier, name, status, status_detail, country,
           registration_status, linked_register, linked_identifier FROM register_entities WHERE register = ?1
             AND generation = ?2 AND EXISTS (SELECT 1 FROM datasets WHERE name = ?1 AND version <= ?3)
           ${UPSERT_COLUMNS}`,
        )
        .bind(name, generation, version),
      db
        .prepare(
          `UPDATE datasets SET version = ?2, loaded_at = ?3, records = (SELECT COUNT(*) FROM register_entities
             WHERE register = ?1 AND generation = coalesce((SELECT active FROM dataset_generations WHERE name = ?1),
               0)) WHERE name = ?1 AND version <= ?2`,
        )
        .bind(name, version, now),
    ],
    sweep: (db, budgetMs) =>
      sweepRows(
        db
          .prepare(
            `DELETE FROM register_entities WHERE (${REGISTER_KEY}) IN (
             SELECT ${REGISTER_KEY} FROM register_entities WHERE register = ?1 AND generation < 0
               AND generation IS NOT (SELECT staging FROM dataset_generations WHERE name = ?2)
             LIMIT ?3)`,
          )
          .bind(name, counter, SWEEP_CHUNK),
        budgetMs,
      ),
  };
}

/** A register file's reader: the header names the columns `parseRow` reads (kept in the state for later steps). */
function registerReader(name: RegisterName): RowReader<RegisterRow> {
  const register = REGISTERS[name];
  return {
    begin: () => ({ indexes: null }),
    read(records, state) {
      const rows: RegisterRow[] = [];
      let skipped = 0;
      let indexes = state.indexes as [string, number][] | null;
      for (const record of records) {
        if (!indexes) {
          indexes = headerIndexes(record, register.columns, name);
          state.indexes = indexes;
          continue;
        }
        const fields: Record<string, string> = {};
        for (const [column, index] of indexes) fields[column] = record[index] ?? "";
        const row = register.parseRow(fields);
        if (row) rows.push(row);
        else skipped += 1;
      }
      return { rows, skipped };
    },
    end: () => [],
  };
}

const HOUR = 60;
const DAY = 24 * HOUR;

export const entityRefreshable: RefreshableDataset[] = [
  {
    name: "gleif-lei",
    // GLEIF publishes the LEI-CDF golden copy three times a day (00:00, 08:00, 16:00 UTC); `latest.csv` is the newest
    // as a zip of one CSV whose name carries the publication time
    // (20261122-0800-gleif-goldencopy-lei2-golden-copy.csv).
    sources: [
      {
        urlVar: "REFRESH_URL_GLEIF_LEI",
        defaultUrl: "https://goldencopy.gleif.org/api/v2/golden-copies/publishes/lei2/latest.csv",
        compression: "zip",
        zipEntry: /\.csv$/i,
      },
    ],
    format: { kind: "csv" },
    reader: registerReader("gleif-lei"),
    table: registerTable("gleif-lei"),
    cadence: { everyMinutes: 8 * HOUR, staleAfterMinutes: 2 * DAY },
    sanity: { minRecords: 100, minRatio: 0.95, maxRatio: 1.1 },
    coverage: REGISTERS["gleif-lei"].coverage,
    // Lapsed and retired LEIs stay in the golden copy, so it only grows past the active population.
    fullFloor: {
      records: 2_000_000,
      basis: "GLEIF's business reports: 2.25 M active LEIs in Q1 2023, more issued since",
    },
    version: ({ fileName }) => REGISTERS["gleif-lei"].versionFromFileName(fileName),
  } satisfies RefreshableDataset<RegisterRow>,
  {
    name: "gleif-lei-delta",
    // The golden copy's delta of the last eight hours (`?delta=IntraDay`; LastDay, LastWeek and LastMonth also exist):
    // between two full refreshes answers follow GLEIF within its own publication cycle at a fraction of the cost.
    sources: [
      {
        urlVar: "REFRESH_URL_GLEIF_LEI_DELTA",
        defaultUrl: "https://goldencopy.gleif.org/api/v2/golden-copies/publishes/lei2/latest.csv?delta=IntraDay",
        compression: "zip",
        zipEntry: /\.csv$/i,
      },
    ],
    format: { kind: "csv" },
    reader: registerReader("gleif-lei"),
    table: deltaTable("gleif-lei"),
    cadence: { everyMinutes: 2 * HOUR, staleAfterMinutes: DAY },
    sanity: { minRecords: 0, minRatio: 0, maxRatio: Number.POSITIVE_INFINITY },
    coverage: { kind: "partial", note: "Changes to gleif-lei since its previous golden copy, applied onto it." },
    fullFloor: null,
    version: ({ fileName }) => REGISTERS["gleif-lei"].versionFromFileName(fileName),
    appliesTo: "gleif-lei",
  } satisfies RefreshableDataset<RegisterRow>,
  {
    name: "uk-companies-house",
    // Companies House publishes its Free Company Data Product monthly, dated the first of the month; `{month}` is
    // replaced by the current month's first day (2026-11-01) so the default follows the release without an operator.
    sources: [
      {
        urlVar: "REFRESH_URL_UK_COMPANIES_HOUSE",
        defaultUrl: "https://download.companieshouse.gov.uk/BasicCompanyDataAsOneFile-{month}.zip",
        compression: "zip",
        zipEntry: /\.csv$/i,
      },
    ],
    format: { kind: "csv" },
    reader: registerReader("uk-companies-house"),
    table: registerTable("uk-companies-house"),
    cadence: { everyMinutes: DAY, staleAfterMinutes: 40 * DAY },
    sanity: { minRecords: 100, minRatio: 0.9, maxRatio: 1.2 },
    coverage: REGISTERS["uk-companies-house"].coverage,
    fullFloor: {
      records: 4_000_000,
      basis: "Companies House: about 5.7 M companies on the live register, observed 2025",
    },
    version: ({ fileName }) => REGISTERS["uk-companies-house"].versionFromFileName(fileName),
  } satisfies RefreshableDataset<RegisterRow>,
];
