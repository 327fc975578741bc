import { headerIndexes } from "../../../datasets/registers/csv.mjs";
import { activateGeneration, beginGeneration, currentGeneration } from "../../db/generations";
import type { GenerationTable, RefreshableDataset, RowReader, SourceFile } from "../../engines/datasets/refreshable";
import { ADDRESS_DATASETS, type AddressDatasetName } from "./datasets";
import type { PostcodeRow, PremiseRow, StreetRow } from "./records";
import { placeKey, streetKey } from "./names";
import { indexEntries, indexStatements } from "./autocomplete/index-rows";
import { ADDRESS_KEYS } from "./store";

/**
 * The address registers the scheduled refresh keeps current (src/engines/datasets/refreshable.ts): ONSPD, OS Open Names
 * and the BAN, read by their own `FileFormat.parse` (as scripts/import-address.mjs reads them), written into a new
 * generation of `address_postcodes`, `address_streets` and `address_premises` (in `REFERENCE_ADDRESS`,
 * src/db/reference.ts) beside the one answers read (`dataset_generations.active`, in `DB`) and switched to in one
 * batch once every row is written.
 */
export type AddressRow = { postcode: PostcodeRow } | { street: StreetRow } | { premise: PremiseRow };

const SWEEP_CHUNK = 20_000;

function addressTable(name: AddressDatasetName): GenerationTable<AddressRow> {
  return {
    current: (db) => currentGeneration(db, name),
    begin: (db) => beginGeneration(db, name),
    // One statement per table, the rows as one JSON parameter (D1 binds at most 100 per statement).
    insert(db, generation, rows) {
      const postcodes: object[] = [];
      const streets: object[] = [];
      const premises: object[] = [];
      for (const row of rows) {
        if ("postcode" in row)
          postcodes.push({
            ...row.postcode,
            locality_key: row.postcode.locality ? placeKey(row.postcode.locality) : "",
            alias: row.postcode.alias ? 1 : 0,
          });
        else if ("street" in row) streets.push({ ...row.street, street_key: streetKey(row.street.street) });
        else premises.push({ ...row.premise, street_key: streetKey(row.premise.street) });
      }
      const statements: D1PreparedStatement[] = [];
      if (postcodes.length)
        statements.push(
          db
            .prepare(
              `INSERT INTO address_postcodes (country, postcode, dataset, generation, locality_key, locality,
               region, region_code, subregion, subregion_code, latitude, longitude, alias)
                 SELECT value ->> '$.country', value ->> '$.postcode', ?1, ?2, value ->> '$.locality_key',
               value ->> '$.locality', value ->> '$.region', value ->> '$.region_code', value ->> '$.subregion',
               value ->> '$.subregion_code', value ->> '$.latitude', value ->> '$.longitude', value ->> '$.alias'
                 FROM json_each(?3) WHERE true ON CONFLICT (country, postcode, dataset, generation, locality_key) DO
                   UPDATE SET locality = excluded.locality, region = excluded.region,
                     region_code = excluded.region_code, subregion = excluded.subregion,
                       subregion_code = excluded.subregion_code, latitude = excluded.latitude,
                 longitude = excluded.longitude, alias = min(alias, excluded.alias)`,
            )
            .bind(name, generation, JSON.stringify(postcodes)),
        );
      if (streets.length)
        statements.push(
          db
            .prepare(
              `INSERT INTO address_streets (country, postcode, street_key, dataset, generation, street, locality)
               SELECT value ->> '$.country', value ->> '$.postcode', value ->> '$.street_key', ?1, ?2,
               value ->> '$.street', value ->> '$.locality' FROM json_each(?3) WHERE true
               ON CONFLICT (country, postcode, street_key, dataset, generation) DO UPDATE
                 SET street = excluded.street, locality = excluded.locality`,
            )
            .bind(name, generation, JSON.stringify(streets)),
        );
      if (premises.length)
        statements.push(
          db
            .prepare(
              `INSERT INTO address_premises (country, postcode, street_key, number, dataset, generation)
               SELECT value ->> '$.country', value ->> '$.postcode', value ->> '$.street_key', value ->> '$.number',
                 ?1, ?2 FROM json_each(?3) WHERE true
               ON CONFLICT DO NOTHING`,
            )
            .bind(name, generation, JSON.stringify(premises)),
        );
      // The autocomplete index of the same rows, in the same generation: it switches with them.
      const entries = indexEntries({
        streets: rows.flatMap((row) => ("street" in row ? [row.street] : [])),
        postcodes: rows.flatMap((row) => ("postcode" in row ? [row.postcode] : [])),
        placesOfStreets: !ADDRESS_DATASETS[name].holds.includes("postcodes"),
      });
      statements.push(...indexStatements(db, { dataset: name, generation }, entries));
      return statements;
    },
    activate: (db, activation) => activateGeneration(db, name, activation),
    // Rows of generations neither read nor being written (WITHOUT ROWID tables: rows are picked by their primary key).
    // The generations are in `db` (DB), the rows in `rows` (REFERENCE_ADDRESS): read before each chunk is deleted.
    async sweep(db, budgetMs, rows) {
      const started = Date.now();
      let deleted = 0;
      const kept = () =>
        db
          .prepare("SELECT coalesce(active, 0) AS active, staging FROM dataset_generations WHERE name = ?")
          .bind(name)
          .first<{ active: number; staging: number | null }>();
      for (const [table, key] of Object.entries(ADDRESS_KEYS)) {
        for (;;) {
          const generations = await kept();
          const changes =
            (
              await rows
                .prepare(
                  `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE dataset = ?1
                     AND generation IS NOT ?2 AND generation IS NOT ?3 LIMIT ?4)`,
                )
                .bind(name, generations?.active ?? 0, generations?.staging ?? null, SWEEP_CHUNK)
                .run()
            ).meta.changes ?? 0;
          deleted += changes;
          if (changes < SWEEP_CHUNK) break;
          if (Date.now() - started > budgetMs) return { deleted, done: false };
        }
      }
      return { deleted, done: true };
    },
  };
}

/**
 * A register file's reader: by the header's column names (ONSPD, the BAN) or by position (OS Open Names' headerless
 * data files, a stray header row skipped). A street repeated on consecutive records (one BAN record per address) is
 * written once; the last one is kept in the state so the next step continues the run.
 */
function addressReader(name: AddressDatasetName): RowReader<AddressRow> {
  const format = ADDRESS_DATASETS[name].file!;
  return {
    begin: () => ({ indexes: format.header ? null : format.columns.map((column, i) => [column, i]), lastStreet: "" }),
    read(records, state) {
      const rows: AddressRow[] = [];
      let skipped = 0;
      let indexes = state.indexes as [string, number][] | null;
      let lastStreet = state.lastStreet as string;
      for (const record of records) {
        if (!format.header && record[0] === format.columns[0]) continue;
        if (!indexes) {
          indexes = headerIndexes(record, format.columns, name);
          state.indexes = indexes;
          continue;
        }
        const fields: Record<string, string> = {};
        for (const [column, index] of indexes) fields[column] = record[index] ?? "";
        const parsed = format.parse(fields);
        if (!parsed) {
          skipped += 1;
          continue;
        }
        for (const postcode of parsed.postcodes ?? []) rows.push({ postcode });
        for (const street of parsed.streets ?? []) {
          const key = `${street.country}|${street.postcode}|${street.street}`;
          if (key !== lastStreet) rows.push({ street });
          lastStreet = key;
        }
        for (const premise of parsed.premises ?? []) rows.push({ premise });
      }
      state.lastStreet = lastStreet;
      return { rows, skipped };
    },
    end: () => [],
  };
}

const DAY = 24 * 60;
const source = (urlVar: string, defaultUrl: string, rest: Omit<SourceFile, "urlVar" | "defaultUrl">): SourceFile => ({
  urlVar,
  defaultUrl,
  ...rest,
});

/** A dataset's refresh: its sources and schedule given here, the rest read from its entry in ADDRESS_DATASETS. */
const refreshable = (
  name: AddressDatasetName,
  given: Pick<RefreshableDataset, "sources" | "cadence" | "sanity" | "fullFloor">,
): RefreshableDataset<AddressRow> => {
  const file = ADDRESS_DATASETS[name].file!;
  return {
    name,
    sources: given.sources,
    format: { kind: "csv", delimiter: file.delimiter },
    reader: addressReader(name),
    table: addressTable(name),
    family: "address",
    cadence: given.cadence,
    sanity: given.sanity,
    coverage: ADDRESS_DATASETS[name].coverage,
    fullFloor: given.fullFloor,
    version: ({ fileName }) => file.versionFromFileName(fileName),
  };
};

export const addressRefreshable: RefreshableDataset[] = [
  // ONS publishes the Postcode Directory quarterly (February, May, August, November) on the Open Geography portal as a
  // zip (`ONSPD_NOV_2026.zip`, the data in `Data/ONSPD_NOV_2026_UK.csv` beside documents and lookup tables) under a
  // new ArcGIS item id each release: no stable URL, so the refresh stays off until the operator sets the var to a
  // release's download URL (a mirror that keeps one URL follows the releases by itself).
  refreshable("uk-onspd", {
    sources: [
      source("REFRESH_URL_UK_ONSPD", "off", { compression: "zip", zipEntry: /(^|\/)ONSPD_[A-Z]{3}_\d{4}_UK\.csv$/i }),
    ],
    cadence: { everyMinutes: 7 * DAY, staleAfterMinutes: 100 * DAY },
    sanity: { minRecords: 100, minRatio: 0.95, maxRatio: 1.1 },
    // Live postcodes only (a terminated one is skipped): ONS lists over 2.5 M with the terminated ones.
    fullFloor: { records: 1_500_000, basis: "about 1.8 M live UK postcodes (ONS; 1,803,286 in October 2024)" },
  }),
  // Ordnance Survey's downloads API redirects to the newest quarterly release (January, April, July, October): a zip
  // of some 820 headerless CSV files, one per 100 km grid square (`Data/SU40.csv`), all read into one staged file.
  refreshable("uk-os-open-names", {
    sources: [
      source(
        "REFRESH_URL_UK_OS_OPEN_NAMES",
        "https://api.os.uk/downloads/v1/products/OpenNames/downloads?area=GB&format=CSV&redirect",
        { compression: "zip", zipEntry: /(^|\/)Data\/[^/]+\.csv$/i, zipAll: true },
      ),
    ],
    cadence: { everyMinutes: 7 * DAY, staleAfterMinutes: 100 * DAY },
    sanity: { minRecords: 100, minRatio: 0.9, maxRatio: 1.15 },
    // Great Britain only: never the complete file of a country it is asked about.
    fullFloor: null,
  }),
  // The BAN's national file, regenerated as the communes' address bases change; gzip-compressed CSV (`;`).
  refreshable("fr-ban", {
    sources: [
      source("REFRESH_URL_FR_BAN", "https://adresse.data.gouv.fr/data/ban/adresses/latest/csv/adresses-france.csv.gz", {
        compression: "gzip",
      }),
    ],
    cadence: { everyMinutes: 7 * DAY, staleAfterMinutes: 21 * DAY },
    sanity: { minRecords: 100, minRatio: 0.95, maxRatio: 1.1 },
    // One premise row per numbered address, beside one row per street.
    fullFloor: { records: 20_000_000, basis: "the BAN: about 26 M addresses in France (adresse.data.gouv.fr)" },
  }),
];
