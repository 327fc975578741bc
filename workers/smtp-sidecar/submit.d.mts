/** Types of what TypeScript modules read from submit.mjs (test/limits/hops.ts: the relay's size limits). */
export const MAX_SUBMIT_BYTES: number;
export const MAX_SUBMIT_REQUEST_BYTES: number;
