import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "../../db/tables/platform";

/**
 * IP datasets as range tables (migrations/0006_ip.sql). Keys are 32 hex digits of the address in one 128-bit space
 * (src/platform/ip-address.ts `rangeKey`). Every import writes a new `generation`; `ipDatasets.active` names the one
 * answers read, so an import switches over in one step and a failed one is never seen.
 */
export const ipDatasets = sqliteTable("ip_datasets", {
  name: text("name").primaryKey(),
  active: integer("active"),
  staging: integer("staging"),
  version: text("version"),
  records: integer("records"),
  loadedAt: integer("loaded_at"),
});

export const ipCountryRanges = sqliteTable(
  "ip_country_ranges",
  {
    generation: integer("generation").notNull(),
    start: text("start").notNull(),
    end: text("end").notNull(),
    country: text("country").notNull(),
  },
  (t) => [primaryKey({ columns: [t.generation, t.start] })],
);

export const ipAsnRanges = sqliteTable(
  "ip_asn_ranges",
  {
    generation: integer("generation").notNull(),
    start: text("start").notNull(),
    end: text("end").notNull(),
    asn: integer("asn").notNull(),
    name: text("name"),
  },
  (t) => [
    primaryKey({ columns: [t.generation, t.start] }),
    index("ip_asn_ranges_asn").on(t.generation, t.asn, t.start),
  ],
);

export const ipCityRanges = sqliteTable(
  "ip_city_ranges",
  {
    generation: integer("generation").notNull(),
    start: text("start").notNull(),
    end: text("end").notNull(),
    city: text("city"),
    region: text("region"),
    postalCode: text("postal_code"),
    latitude: real("latitude"),
    longitude: real("longitude"),
    accuracyRadiusKm: integer("accuracy_radius_km"),
    /** Where the city file places the network: answers show the city only when `ip-country` agrees. */
    country: text("country"),
  },
  (t) => [primaryKey({ columns: [t.generation, t.start] })],
);

/**
 * Ranges of published lists (hosting-*, vpn-*): one table, each dataset with its own generations; `label` names the
 * provider.
 */
export const ipSignalRanges = sqliteTable(
  "ip_signal_ranges",
  {
    dataset: text("dataset").notNull(),
    generation: integer("generation").notNull(),
    start: text("start").notNull(),
    end: text("end").notNull(),
    label: text("label"),
  },
  (t) => [primaryKey({ columns: [t.dataset, t.generation, t.start] })],
);

export const ipTorExits = sqliteTable(
  "ip_tor_exits",
  { generation: integer("generation").notNull(), address: text("address").notNull() },
  (t) => [primaryKey({ columns: [t.generation, t.address] })],
);

/**
 * An account's allow or deny list. `entries` as the account wrote them; `ranges` (merged, sorted [start, end] keys) and
 * `asns` are derived from them when the list is written, so matching needs no parsing.
 */
export const ipLists = sqliteTable(
  "ip_lists",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["allow", "deny"] }).notNull(),
    entries: text("entries", { mode: "json" }).$type<string[]>().notNull(),
    ranges: text("ranges", { mode: "json" }).$type<[string, string][]>().notNull(),
    asns: text("asns", { mode: "json" }).$type<number[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("ip_lists_account").on(t.accountId)],
);
