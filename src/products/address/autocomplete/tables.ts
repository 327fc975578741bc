import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The autocomplete index (docs/address.md, "Autocomplete"): one row per (token, entry) of the address datasets' streets
 * and postcodes, written beside their rows in the same generation (src/products/address/refresh.ts and the operator
 * import), so a prefix of a token is one range of the primary key's B-tree. An entry's display fields ride on each of
 * its token rows: a suggestion is read without a join. `search` is the entry's folded text, which a query's other
 * words are matched against.
 */
export const autocompleteTokens = sqliteTable(
  "autocomplete_tokens",
  {
    country: text("country").notNull(),
    /** One folded word of the entry (normalise.ts beside this file), or a postcode without its space. */
    token: text("token").notNull(),
    /** `street` (a street of a postcode or postcode district) or `postcode` (a postcode and one of its places). */
    kind: text("kind").notNull(),
    postcode: text("postcode").notNull(),
    /** The street's name (a street entry) or the place's ('' when the dataset names none). */
    label: text("label").notNull(),
    dataset: text("dataset").notNull(),
    generation: integer("generation").notNull().default(0),
    /** The address datasets' street key: house numbers are read from `address_premises` by it. */
    streetKey: text("street_key").notNull(),
    locality: text("locality"),
    region: text("region"),
    search: text("search").notNull(),
  },
  (t) => [primaryKey({ columns: [t.dataset, t.generation, t.country, t.token, t.kind, t.postcode, t.label] })],
);
