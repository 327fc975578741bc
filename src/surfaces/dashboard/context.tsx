import type { Context, MiddlewareHandler } from "hono";
import { BODY_BYTES, readBytes } from "../../http/body";
import type { AppVariables } from "../../types";
import { MessagePage } from "./pages/sign-in";
import { ANON_CSRF_COOKIE, sameOrigin, sentCsrfToken, tokensMatch } from "./security";
import { readSession, type DashboardSession } from "./session";
import { getCookie } from "hono/cookie";
import { nextQuery } from "../../engines/mail/return-path";

export interface DashEnv {
  Bindings: Env;
  Variables: AppVariables & { session: DashboardSession };
}

export type DashContext = Context<DashEnv>;

/** The answer to a refused state change: nothing was done. */
export const csrfRefusal = (c: Context) =>
  c.html(
    <MessagePage
      title="Request refused"
      message="This form was not sent from this dashboard, or it is too old. Reload the page and try again."
    />,
    403,
  );

/** The answer to a post over its body limit: nothing was read past the limit, nothing was done. */
export const tooLargeRefusal = (c: Context, maxBytes: number) =>
  c.html(
    <MessagePage
      title="Form too large"
      message={`This form sent more than ${maxBytes.toLocaleString("en-US")} bytes. Nothing was done.`}
    />,
    413,
  );

/**
 * What a dashboard post may carry (docs/dashboard.md, "Sessions and the browser rules"): the bulk page's upload, a
 * signed-in form, or a signed-out one. It is read through the bounded reader before the CSRF check looks at it.
 */
const postLimit = (path: string, signedIn: boolean) =>
  !signedIn ? BODY_BYTES.anonymousForm : path === "/dashboard/bulk" ? BODY_BYTES.upload : BODY_BYTES.form;

/** Anonymous forms (sign-in, sign-up, following a link): same origin, and the token of the browser's CSRF cookie. */
export const anonymousCsrf = (): MiddlewareHandler<DashEnv> => async (c, next) => {
  if (c.req.method === "POST") {
    const limit = postLimit(c.req.path, false);
    if (!(await readBytes(c, limit))) return tooLargeRefusal(c, limit);
    if (!(sameOrigin(c) && tokensMatch(await sentCsrfToken(c), getCookie(c, ANON_CSRF_COOKIE)))) return csrfRefusal(c);
  }
  await next();
};

/** The page asked for, as a path with its query: where the browser lands after signing in (the front page: none). */
const askedPath = (c: Context) => {
  const url = new URL(c.req.url);
  return /^\/dashboard\/?$/.test(url.pathname) ? null : `${url.pathname}${url.search}`;
};

/**
 * Signed-in pages: a live session or the sign-in page (which keeps the page asked for as `next`, through the sign-in
 * mail); a state change must come from this origin and carry the session's CSRF token.
 */
export const signedIn = (): MiddlewareHandler<DashEnv> => async (c, next) => {
  const session = await readSession(c);
  if (!session)
    return c.req.method === "GET"
      ? c.redirect(`/dashboard/sign-in${nextQuery(askedPath(c))}`, 303)
      : c.html(<MessagePage title="Signed out" message="Your session ended. Sign in again." />, 401);
  if (c.req.method !== "GET") {
    const limit = postLimit(c.req.path, true);
    if (!(await readBytes(c, limit))) return tooLargeRefusal(c, limit);
    if (!(sameOrigin(c) && tokensMatch(await sentCsrfToken(c), session.csrfToken))) return csrfRefusal(c);
  }
  c.set("session", session);
  await next();
};

/** Pages only an owner may use (members, billing changes). */
export const ownerOnly = (): MiddlewareHandler<DashEnv> => async (c, next) => {
  if (c.var.session.role !== "owner")
    return c.html(<MessagePage title="Owners only" message="Only an owner of this account can do this." />, 403);
  await next();
};
