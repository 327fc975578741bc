import { call, json } from "../helpers";

/** Text as a page shows it, with hono/jsx's escapes undone. */
export const htmlText = (text: string) =>
  text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");

/** A page's refusal list (`<li>field: messages</li>`) as [field, messages] pairs. */
export const errorsOn = (html: string) =>
  [...html.matchAll(/<li>([a-z_.0-9]+): ([^<]*)<\/li>/g)].map((m) => [m[1], htmlText(m[2]!)]);

/** The API's `error.errors` in the same shape, messages joined as a page joins them. */
export const apiErrors = (error: { errors?: unknown } | undefined) =>
  Object.entries((error?.errors ?? {}) as Record<string, string[]>).map(([field, messages]) => [
    field,
    messages.join(" "),
  ]);

/** The API, called with a key from one fixed source address. */
export const apiCall = (key: string, path: string, method = "GET", body?: unknown) =>
  call(
    `/api/v1${path}`,
    body === undefined
      ? { method, headers: { Authorization: `Bearer ${key}`, "CF-Connecting-IP": "198.51.100.90" } }
      : json(body, { Authorization: `Bearer ${key}`, "CF-Connecting-IP": "198.51.100.90" }, method),
  );
