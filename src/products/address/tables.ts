import { integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Postal reference data of the address product (src/products/address/datasets.ts), loaded by the operator importer:
 * one row per (postcode, locality) a dataset names, and the streets of a postcode. `*_key` columns hold the folded
 * spelling that lookups compare (src/products/address/names.ts). Which datasets are installed is the `datasets` table.
 */
export const addressPostcodes = sqliteTable(
  "address_postcodes",
  {
    country: text("country").notNull(),
    postcode: text("postcode").notNull(),
    dataset: text("dataset").notNull(),
    /** The import the row belongs to: answers read the dataset's active one (`dataset_generations`, absent: 0). */
    generation: integer("generation").notNull().default(0),
    /** '' when the dataset names no place for the postcode. */
    localityKey: text("locality_key").notNull(),
    locality: text("locality"),
    region: text("region"),
    regionCode: text("region_code"),
    subregion: text("subregion"),
    subregionCode: text("subregion_code"),
    latitude: real("latitude"),
    longitude: real("longitude"),
    /** An accepted name the postcode listing does not show. */
    alias: integer("alias", { mode: "boolean" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.dataset, t.generation, t.country, t.postcode, t.localityKey] })],
);

export const addressStreets = sqliteTable(
  "address_streets",
  {
    country: text("country").notNull(),
    postcode: text("postcode").notNull(),
    streetKey: text("street_key").notNull(),
    dataset: text("dataset").notNull(),
    generation: integer("generation").notNull().default(0),
    street: text("street").notNull(),
    locality: text("locality"),
  },
  (t) => [primaryKey({ columns: [t.dataset, t.generation, t.country, t.postcode, t.streetKey] })],
);

/**
 * House numbers a street register lists on a street of a postcode (migrations/0015_coverage.sql): premise precision.
 */
export const addressPremises = sqliteTable(
  "address_premises",
  {
    country: text("country").notNull(),
    postcode: text("postcode").notNull(),
    streetKey: text("street_key").notNull(),
    /** `premiseNumber`'s spelling (src/products/address/file-formats.ts). */
    number: text("number").notNull(),
    dataset: text("dataset").notNull(),
    generation: integer("generation").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.dataset, t.generation, t.country, t.postcode, t.streetKey, t.number] })],
);
