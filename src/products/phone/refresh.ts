import metadata from "libphonenumber-js/metadata.max.json";
import { activateGeneration, beginGeneration, currentGeneration } from "../../db/generations";
import type { GenerationTable, RefreshableDataset, RowReader, SourceFile } from "../../engines/datasets/refreshable";
import type { TableDataset } from "./datasets";

/**
 * The phone prefix tables on the scheduled refresh (src/engines/datasets/refreshable.ts), read from the publishers' own
 * files, the ones datasets/phone/build.mjs builds them from: Google libphonenumber's resource text files (carrier and
 * geocoding `resources/<kind>/en/<calling code>.txt`, `resources/timezones/map_data.txt`: `E.164 prefix|value` lines)
 * out of the repository's zip archive, and the receive-SMS list of @ip1sms/disposable-phone-numbers
 * (`number-list.json`).
 *
 * `phone_prefixes` rows carry a version, and answers read the rows of the version `datasets` lists. A refresh writes
 * generation n under the row version `gen-n` and lists the dataset at `<date>-gen-n` (store.ts matches the suffix), so
 * the new rows sit beside the old ones until that one `datasets` update switches answers to them.
 */
export type PhoneRow = [callingCode: string, prefix: string, value: string];

/** The row version of a refreshed generation; the cited version ends with `-` and it (store.ts `current`). */
export const generationVersion = (generation: number) => `gen-${generation}`;

const SWEEP_CHUNK = 20_000;

function phoneTable(name: TableDataset): GenerationTable<PhoneRow> {
  return {
    current: (db) => currentGeneration(db, name),
    begin: (db) => beginGeneration(db, name),
    // The rows as one JSON parameter (D1 binds at most 100 per statement).
    insert: (db, generation, rows) => [
      db
        .prepare(
          `INSERT INTO phone_prefixes (calling_code, prefix, dataset, version, value)
           SELECT value ->> '$[0]', value ->> '$[1]', ?1, ?2, value ->> '$[2]' FROM json_each(?3) WHERE true
           ON CONFLICT (calling_code, prefix, dataset, version) DO UPDATE SET value = excluded.value`,
        )
        .bind(name, generationVersion(generation), JSON.stringify(rows)),
    ],
    activate: (db, activation) =>
      activateGeneration(db, name, {
        ...activation,
        version: `${activation.version}-${generationVersion(activation.generation)}`,
      }),
    // Rows neither answers read (the listed version, or its generation's) nor the refresh being imported writes.
    async sweep(db, budgetMs) {
      const started = Date.now();
      let deleted = 0;
      const statement = db
        .prepare(
          `DELETE FROM phone_prefixes WHERE rowid IN (SELECT p.rowid FROM phone_prefixes p WHERE p.dataset = ?1
             AND p.version IS NOT coalesce('gen-' || (SELECT staging FROM dataset_generations WHERE name = ?1), '')
             AND NOT EXISTS (SELECT 1 FROM datasets d WHERE d.name = ?1
               AND (d.version = p.version OR substr(d.version, -length(p.version) - 1) = '-' || p.version))
             LIMIT ?2)`,
        )
        .bind(name, SWEEP_CHUNK);
      for (;;) {
        const changes = (await statement.run()).meta.changes ?? 0;
        deleted += changes;
        if (changes < SWEEP_CHUNK) return { deleted, done: true };
        if (Date.now() - started > budgetMs) return { deleted, done: false };
      }
    },
  };
}

const CALLING_CODES = new Set(Object.keys(metadata.country_calling_codes));

/** E.164 digits -> [calling code, national prefix] (calling codes are prefix-free: ITU-T E.164). */
export function splitCallingCode(digits: string): [string, string] | null {
  for (let n = 1; n <= 3; n++) if (CALLING_CODES.has(digits.slice(0, n))) return [digits.slice(0, n), digits.slice(n)];
  return null;
}

/** The longest national prefix a lookup asks for (datasets/phone/build.mjs MAX_PREFIX_DIGITS). */
const MAX_PREFIX_DIGITS = 10;

/**
 * libphonenumber's prefix files: `#` comments, blank lines, `<E.164 prefix>|<text>`. Timezones join their zones with
 * `&`, sorted here as the build sorts them. A line of no known calling code or too long a prefix is skipped.
 */
export const prefixFileReader = (sortZones: boolean): RowReader<PhoneRow> => ({
  begin: () => ({}),
  read(records) {
    const rows: PhoneRow[] = [];
    let skipped = 0;
    for (const [line = ""] of records) {
      const text = line.trim();
      if (text === "" || text.startsWith("#")) continue;
      const match = /^(\d{1,17})\|(.+)$/.exec(text);
      const parts = match ? splitCallingCode(match[1]!) : null;
      const value = match?.[2]?.trim() ?? "";
      if (!parts || value === "" || /[\t\n\r]/.test(value) || parts[1].length > MAX_PREFIX_DIGITS) {
        skipped += 1;
        continue;
      }
      rows.push([...parts, sortZones ? value.split("&").sort().join("&") : value]);
    }
    return { rows, skipped };
  },
  end: () => [],
});

/** `number-list.json`: `{ "<E.164 digits>": "<last seen YYYY-MM-DD>" }`, one JSON document. */
export const disposableListReader: RowReader<PhoneRow> = {
  begin: () => ({}),
  read(records) {
    const rows: PhoneRow[] = [];
    let skipped = 0;
    for (const [text = ""] of records) {
      let list: unknown;
      try {
        list = JSON.parse(text);
      } catch {
        throw new Error("number-list.json: the file is not JSON");
      }
      if (typeof list !== "object" || list === null || Array.isArray(list))
        throw new Error("number-list.json: not an object of numbers");
      for (const [digits, lastSeen] of Object.entries(list)) {
        const parts =
          /^\d{6,15}$/.test(digits) && typeof lastSeen === "string" && /^\d{4}-\d{2}-\d{2}$/.test(lastSeen)
            ? splitCallingCode(digits)
            : null;
        if (parts) rows.push([...parts, lastSeen as string]);
        else skipped += 1;
      }
    }
    return { rows, skipped };
  },
  end: () => [],
};

const DAY = 24 * 60;
/** Google tags a libphonenumber release every few weeks; master holds the newest release's resource files. */
const LIBPHONENUMBER_ZIP = "https://github.com/google/libphonenumber/archive/refs/heads/master.zip";
const libphonenumber = (urlVar: string, member: RegExp, all: boolean): SourceFile => ({
  urlVar,
  defaultUrl: LIBPHONENUMBER_ZIP,
  compression: "zip",
  zipEntry: member,
  zipAll: all,
});

const FULL = { kind: "full" } as const;
const WEEKLY = { everyMinutes: 7 * DAY, staleAfterMinutes: 60 * DAY };

export const phoneRefreshable: RefreshableDataset[] = [
  {
    name: "phone-carriers",
    sources: [libphonenumber("REFRESH_URL_PHONE_CARRIERS", /(^|\/)resources\/carrier\/en\/\d+\.txt$/, true)],
    format: { kind: "lines" },
    reader: prefixFileReader(false),
    table: phoneTable("phone-carriers"),
    cadence: WEEKLY,
    sanity: { minRecords: 100, minRatio: 0.9, maxRatio: 1.2 },
    coverage: FULL,
    fullFloor: { records: 20_000, basis: "libphonenumber's carrier files: 28,884 prefixes (2026)" },
  } satisfies RefreshableDataset<PhoneRow>,
  {
    name: "phone-geocodes",
    sources: [libphonenumber("REFRESH_URL_PHONE_GEOCODES", /(^|\/)resources\/geocoding\/en\/\d+\.txt$/, true)],
    format: { kind: "lines" },
    reader: prefixFileReader(false),
    table: phoneTable("phone-geocodes"),
    cadence: WEEKLY,
    sanity: { minRecords: 100, minRatio: 0.9, maxRatio: 1.2 },
    coverage: FULL,
    fullFloor: { records: 200_000, basis: "libphonenumber's geocoding files: 266,158 prefixes (2026)" },
  } satisfies RefreshableDataset<PhoneRow>,
  {
    name: "phone-timezones",
    sources: [libphonenumber("REFRESH_URL_PHONE_TIMEZONES", /(^|\/)resources\/timezones\/map_data\.txt$/, false)],
    format: { kind: "lines" },
    reader: prefixFileReader(true),
    table: phoneTable("phone-timezones"),
    cadence: WEEKLY,
    // 3,291 rows in the full file; the floor refuses an empty or cut file, the ratios a shrunk one.
    sanity: { minRecords: 20, minRatio: 0.9, maxRatio: 1.2 },
    coverage: FULL,
    fullFloor: { records: 2_500, basis: "libphonenumber's map_data.txt: 3,291 prefixes (2026)" },
  } satisfies RefreshableDataset<PhoneRow>,
  {
    name: "phone-disposable",
    // The list's npm package is republished almost daily; jsDelivr serves its newest file at this URL.
    sources: [
      {
        urlVar: "REFRESH_URL_PHONE_DISPOSABLE",
        defaultUrl: "https://cdn.jsdelivr.net/npm/@ip1sms/disposable-phone-numbers/number-list.json",
        compression: "none",
      },
    ],
    format: { kind: "whole", maxBytes: 32 * 1024 * 1024 },
    reader: disposableListReader,
    table: phoneTable("phone-disposable"),
    cadence: { everyMinutes: DAY, staleAfterMinutes: 7 * DAY },
    // Numbers come and go from receive-SMS sites daily: a list half the size is a broken one.
    sanity: { minRecords: 50, minRatio: 0.5, maxRatio: 2 },
    coverage: FULL,
    fullFloor: { records: 40_000, basis: "the receive-SMS list: 93,287 numbers (2026)" },
  } satisfies RefreshableDataset<PhoneRow>,
];
