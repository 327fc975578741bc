/** Types of what TypeScript modules read from deliver.mjs (test/limits/hops.ts: the relay's size limits). */
export const MAX_DELIVER_BODY_BYTES: number;
export const MAX_DELIVER_REQUEST_BYTES: number;
