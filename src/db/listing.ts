/**
 * What every stored list shares, below the engines and the HTTP layer alike: the page size and the rendering of a
 * stored Unix-ms timestamp. `http/time.ts` re-exports both for the routes.
 */

/** Every list endpoint answers 100 a page. */
export const PER_PAGE = 100;

/** A stored Unix-ms time as ISO 8601, null kept. */
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
