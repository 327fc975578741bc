import type { SecretPrincipal } from "../auth/check-secret-key";
import type { Scope } from "../auth/scopes";
import type { Admission, RateLimitRefusal } from "../limits/admission";
import type { SurfaceError } from "../lookups/service";

/**
 * A checked secret key acting through a surface on an engine (the account, bulk runs, monitors): REST, the tool
 * protocol and the dashboard each build one from their own request and render the outcome their own way.
 */
export interface KeyAct {
  env: Env;
  principal: SecretPrincipal;
  /** The request's pending rate limit, counted by the act's first call to the account's object (absent: counted). */
  admission?: Admission;
}

/** What an engine act answered: `data` and `meta` as the API's envelope carries them, or its error as a value. */
export type ActOutcome<T = unknown> =
  | { ok: true; data: T; meta: Record<string, unknown>; creditsUsed?: number }
  | { ok: false; error: SurfaceError };

export const answered = <T>(data: T, meta: Record<string, unknown> = {}): ActOutcome<T> => ({ ok: true, data, meta });

export const refused = (
  code: string,
  message: string,
  errors?: Record<string, string[]>,
): { ok: false; error: SurfaceError } => ({ ok: false, error: { code, message, ...(errors ? { errors } : {}) } });

export const notFoundError = (what: string) => refused("NOT_FOUND", `${what} not found.`);

/** KEY_SCOPE_DENIED when the key lacks `scope` (the API's middleware refuses the same before the route runs). */
export const scopeRefusal = (principal: SecretPrincipal, scope: Scope) =>
  principal.scopes.includes(scope)
    ? null
    : refused("KEY_SCOPE_DENIED", `The key's scopes do not include \`${scope}\`.`);

/** The rate limit the act's first call to the account's object counted, refused as RATE_LIMITED like any refusal. */
export const rateLimitedError = (limited: RateLimitRefusal): { ok: false; error: SurfaceError } => ({
  ok: false,
  error: { code: "RATE_LIMITED", ...limited },
});
