/**
 * Where a browser goes once it is signed in: a path of the dashboard it asked for before signing in (`next`), kept
 * through the sign-in mail. Only a same-site relative path under `/dashboard` is kept, so a link can never send the
 * browser to another site (`//evil.example`, `/\evil.example`, `https://...`); anything else is dropped.
 */
export const RETURN_PATH_MAX = 512;

const SIGNED_OUT_PAGES = /^\/dashboard\/(sign-in|sign-up)(\/|\?|#|$)/;

export function returnPath(value: unknown): string | null {
  if (typeof value !== "string" || value.length > RETURN_PATH_MAX) return null;
  // Control characters and backslashes are how a path is made to read as another origin by some browsers.
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return null;
  if (!/^\/dashboard(\/|\?|#|$)/.test(value)) return null;
  return SIGNED_OUT_PAGES.test(value) ? null : value;
}

/** `?next=` for a URL, or nothing when there is no path worth keeping. */
export const nextQuery = (path: string | null | undefined) =>
  path && returnPath(path) ? `?next=${encodeURIComponent(path)}` : "";
