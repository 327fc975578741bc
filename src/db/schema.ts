/**
 * The tables every product shares. A product's own tables live in its folder (`src/products/<name>/tables.ts`),
 * imported by its stores only; drizzle-kit reads both (drizzle.config.ts). Times are Unix milliseconds. Money never
 * lives here: balances and the ledger are in the AccountObject Durable Object.
 */
export * from "./tables/platform";
export * from "./tables/engines";
export * from "./tables/policies";
export * from "./tables/refresh";
export * from "./tables/mail";
export * from "./tables/monitor-runs";
export * from "./tables/partners";
export * from "./tables/dashboard";
