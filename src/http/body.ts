import type { Context } from "hono";
import { validationFailed } from "./errors";

/**
 * Request body limits (docs/api-decisions.md, "Request bodies"): the largest body a route reads, in bytes. A bulk run
 * takes up to 100,000 rows; a sender's inbound batch runs to a few MB; every other API body is a single lookup, a
 * batch, a monitor's list or a feedback batch, far below its limit however long its values. Stripe's events are a few
 * KB; a signed-in dashboard form carries what the API's JSON would (the bulk page's upload: a 16 MB file and the
 * form around it); a signed-out form (sign-in, sign-up, a link's button, mail preferences) an address and a token.
 */
export const BODY_BYTES = {
  json: 2 * 1024 * 1024,
  bulk: 32 * 1024 * 1024,
  inbound: 8 * 1024 * 1024,
  stripe: 1024 * 1024,
  form: 2 * 1024 * 1024,
  anonymousForm: 64 * 1024,
  upload: 17 * 1024 * 1024,
} as const;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const tooLarge = (maxBytes: number) => validationFailed({ body: [`The body is over the limit of ${maxBytes} bytes.`] });

type BodyCache = Record<string, Promise<unknown> | undefined>;

/**
 * The one bounded reader: the body's bytes, counted as they arrive (a chunked or unframed body has no Content-Length
 * to trust) and no further than the first byte over `maxBytes`; null when the body is over it (a declared length over
 * it is refused before anything is read). The bytes are handed to Hono's body cache, so `c.req.parseBody()`,
 * `c.req.json()` and `c.req.text()` read them again without touching the stream.
 */
export async function readBytes(c: Context, maxBytes: number): Promise<Uint8Array | null> {
  const cache = c.req.bodyCache as BodyCache;
  if (cache.arrayBuffer) return new Uint8Array((await cache.arrayBuffer) as ArrayBuffer);
  const declared = c.req.header("Content-Length");
  if (declared !== undefined && Number(declared) > maxBytes) return null;
  const stream = c.req.raw.body;
  const parts: Uint8Array[] = [];
  let size = 0;
  if (stream) {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return null;
      }
      parts.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) bytes.set(part, offset), (offset += part.byteLength);
  cache.arrayBuffer = Promise.resolve(bytes.buffer);
  return bytes;
}

/**
 * An API body as text: read by `readBytes` (over `maxBytes`: 422 VALIDATION_FAILED keyed `body`), then decoded as
 * strict UTF-8 (no byte is ever replaced by U+FFFD; invalid: 422 too).
 */
export async function readBody(c: Context, maxBytes: number): Promise<string> {
  const cache = c.req.bodyCache as BodyCache;
  if (cache.text) return (await cache.text) as string;
  const bytes = await readBytes(c, maxBytes);
  if (!bytes) throw tooLarge(maxBytes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw validationFailed({ body: ["The body is not valid UTF-8."] });
  }
  cache.text = Promise.resolve(text);
  return text;
}
