import { call, json } from "../../helpers";

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

const KEY_RATE = "Over 5 requests per second for this key.";

/**
 * The API, called with a key from one fixed source address, as a client that paces itself: a refusal for the key's
 * rate of 5 a second (the dashboard's own calls with the key count too) is asked again after its Retry-After, so a
 * test's outcome never depends on how fast the machine runs it.
 */
export async function apiCall(key: string, path: string, method = "GET", body?: unknown) {
  const headers = { Authorization: `Bearer ${key}`, "CF-Connecting-IP": "198.51.100.90" };
  for (let attempt = 1; ; attempt++) {
    const answer = await call(`/api/v1${path}`, body === undefined ? { method, headers } : json(body, headers, method));
    if (answer.status !== 429 || answer.body.error?.message !== KEY_RATE || attempt === 4) return answer;
    await new Promise((resolve) => setTimeout(resolve, Number(answer.response.headers.get("Retry-After")) * 1_000));
  }
}
