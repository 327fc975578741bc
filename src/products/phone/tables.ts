import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The phone datasets too large for the Worker bundle (carriers, geocodes, timezones, disposable numbers), one row per
 * national-number prefix of a calling code. Rows carry the version they were imported as: a lookup reads only the
 * version the `datasets` table names, so a new version is loaded beside the old one and switched to in one step.
 */
export const phonePrefixes = sqliteTable(
  "phone_prefixes",
  {
    callingCode: text("calling_code").notNull(),
    /** National-number digits; the empty string covers the whole calling code (timezones). */
    prefix: text("prefix").notNull(),
    dataset: text("dataset").notNull(),
    version: text("version").notNull(),
    /** Carrier name, place, `&`-joined IANA zones, or a disposable number's last-seen date. */
    value: text("value").notNull(),
  },
  // Lookups ask by calling code and prefix (whatever the dataset), so those lead the key: SQLite then never scans.
  (t) => [primaryKey({ columns: [t.callingCode, t.prefix, t.dataset, t.version] })],
);
