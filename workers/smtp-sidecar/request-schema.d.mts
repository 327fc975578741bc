/** Types of what TypeScript modules read from request-schema.mjs (test/limits/hops.ts: the per-call limits). */
export const LIMITS: Readonly<{
  addresses: { min: number; max: number };
  mxHosts: { min: number; max: number };
  timeoutMs: { min: number; max: number };
  addressLength: number;
  localPartLength: number;
}>;
