import type { Context } from "hono";
import { getCookie } from "hono/cookie";

/**
 * The dashboard's session cookie. `__Host-` binds it to this origin: Secure, Path=/, no Domain, so no other host or
 * path can set or read it. Named here, below the dashboard, because request ids are signed for it (request-id.ts).
 */
export const SESSION_COOKIE = "__Host-session";

/**
 * What a request presents to say who it is: its `Authorization` header, else its dashboard session cookie, else `""`.
 * A request id is signed for it, and `GET /account/requests/{id}` (and the dashboard's lookup by id) waits for a
 * record still on its way only when the id was signed for the credential the reader presents.
 */
export function requestCredential(c: Context): string {
  const bearer = c.req.header("Authorization");
  if (bearer) return bearer;
  const session = getCookie(c, SESSION_COOKIE);
  return session ? `session:${session}` : "";
}
