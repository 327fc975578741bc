import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Company registers synced locally (GLEIF LEI-CDF, UK Companies House, ...): one row per identifier in the register's
 * own spelling. No registered address is stored.
 */
export const registerEntities = sqliteTable(
  "register_entities",
  {
    register: text("register").notNull(),
    /** The import the row belongs to: answers read the register's active one (`dataset_generations`, absent: 0). */
    generation: integer("generation").notNull().default(0),
    identifier: text("identifier").notNull(),
    name: text("name"),
    /** Normalised: `active`, `dissolved`, or another lowercase word the register uses. */
    status: text("status").notNull(),
    /** The register's own status wording (e.g. "Liquidation", "LAPSED"). */
    statusDetail: text("status_detail"),
    country: text("country"),
    /** LEI records: ISSUED, LAPSED, RETIRED, ... */
    registrationStatus: text("registration_status"),
    /** LEI records: the national register and number the record points to, for cross-register flags. */
    linkedRegister: text("linked_register"),
    linkedIdentifier: text("linked_identifier"),
  },
  (t) => [primaryKey({ columns: [t.register, t.generation, t.identifier] })],
);

/**
 * `register_entities`' primary key: a WITHOUT ROWID table since migrations/0033_reference_keys.sql (its key was a
 * second B-tree beside the rows), so a row is picked by it.
 */
export const REGISTER_KEY = "register, generation, identifier";

/** Generations of datasets whose rows carry one (registers): `active` is read, `staging` is being refreshed. */
export const datasetGenerations = sqliteTable("dataset_generations", {
  name: text("name").primaryKey(),
  active: integer("active").notNull().default(0),
  staging: integer("staging"),
});
