import { CLOUDFLARE_LIMITS } from "../platform/cloudflare-limits";

/** D1 binds at most 100 parameters a statement: lists of ids or rows are cut into chunks below that. */
export const MAX_PARAMS = CLOUDFLARE_LIMITS.d1BoundParameters;

export const chunks = <T>(items: T[], size = 90): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));
