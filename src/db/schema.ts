/**
 * Times are Unix milliseconds. Money never lives here: balances and the ledger are in the AccountCredits Durable
 * Object.
 */
export * from "./tables/platform";
export * from "./tables/engines";
export * from "./tables/email";
export * from "./tables/registers";
export * from "./tables/address";
export * from "./tables/policies";
export * from "./tables/ip";
export * from "./tables/phone";
export * from "./tables/refresh";
export * from "./tables/mail";
export * from "./tables/monitor-runs";
export * from "./tables/partners";
export * from "./tables/dashboard";
