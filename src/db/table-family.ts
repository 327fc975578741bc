/**
 * The families of tables that may live in a D1 database of their own (src/db/reference.ts): `address` is the address
 * reference data (`REFERENCE_ADDRESS`), `main` everything else (`DB`). Apart from reference.ts so code typechecked
 * without the Worker's `Env` (the refresh contract, read by Node-side tests) can name them.
 */
export type TableFamily = "main" | "address";
