import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { secureHeaders } from "hono/secure-headers";
import { randomToken } from "../../platform/tokens";

/**
 * Where the buy buttons' Checkout may send the browser: Stripe's hosted page, and, when STRIPE_API_URL points the
 * client at a stand-in (the tests, `npm run dev -- --offline`), that stand-in's own payment page. Chromium applies
 * form-action to the redirect after a form's post too.
 */
function checkoutPages(c: Context): string {
  const hosted = "https://checkout.stripe.com";
  const api = (c.env as { STRIPE_API_URL?: string } | undefined)?.STRIPE_API_URL;
  if (!api || !URL.canParse(api)) return hosted;
  const { hostname, origin } = new URL(api);
  return hostname === "api.stripe.com" ? hosted : `${hosted} ${origin}`;
}

/**
 * Headers on every dashboard page (hono's secureHeaders): scripts, styles and form targets from this origin only, no
 * framing by anyone (CSP frame-ancestors and X-Frame-Options), referrers only to this origin (a sign-in link's token
 * is in its path; "no-referrer" would also make browsers send `Origin: null` on the forms, which the CSRF check
 * refuses).
 */
export const dashboardHeaders = (): MiddlewareHandler => {
  const headers = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", "data:"],
      connectSrc: ["'self'"],
      formAction: ["'self'", checkoutPages],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
    xFrameOptions: "DENY",
    referrerPolicy: "same-origin",
    crossOriginOpenerPolicy: "same-origin",
  });
  return async (c, next) => {
    await headers(c, next);
    c.header("Cache-Control", "no-store");
  };
};

/** Before sign-in there is no session to bind a token to: forms carry this cookie's value back (double submit). */
export const ANON_CSRF_COOKIE = "__Host-csrf";

/** The anonymous CSRF token of this browser, set on the first page that shows a form. */
export function anonymousCsrfToken(c: Context): string {
  const existing = getCookie(c, ANON_CSRF_COOKIE);
  if (existing && /^[0-9A-Za-z]{32}$/.test(existing)) return existing;
  const token = randomToken(32);
  setCookie(c, ANON_CSRF_COOKIE, token, { httpOnly: true, secure: true, sameSite: "Strict", path: "/" });
  return token;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a state-changing request comes from this origin's own pages: the browser's Origin header (or, without it,
 * Sec-Fetch-Site) must say so. Hono's csrf middleware does the same but only for form content types and answers with
 * a bare exception; the dashboard also refuses JSON posts from elsewhere and answers with its own page.
 */
export function sameOrigin(c: Context): boolean {
  if (SAFE.has(c.req.method)) return true;
  const origin = c.req.header("Origin");
  if (origin) return origin === new URL(c.req.url).origin;
  return c.req.header("Sec-Fetch-Site") === "same-origin";
}

/** Constant-time comparison of two tokens. */
export function tokensMatch(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The token a request sent: the `_csrf` form field, or the X-CSRF-Token header for the page script's JSON calls. */
export async function sentCsrfToken(c: Context): Promise<string | undefined> {
  const header = c.req.header("X-CSRF-Token");
  if (header) return header;
  const type = c.req.header("Content-Type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type)) return undefined;
  const field = (await c.req.parseBody())._csrf;
  return typeof field === "string" ? field : undefined;
}
