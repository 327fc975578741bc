import type { Context } from "hono";
import type { AppEnv } from "../types";
import { validationFailed } from "./errors";

/**
 * Request body limits (docs/api-decisions.md, "Request bodies"): the largest body a route reads, in bytes. A bulk run
 * takes up to 100,000 rows; a sender's inbound batch runs to a few MB; every other body is a single lookup, a batch,
 * a monitor's list or a feedback batch, far below its limit however long its values.
 */
export const BODY_BYTES = { json: 2 * 1024 * 1024, bulk: 32 * 1024 * 1024, inbound: 8 * 1024 * 1024 } as const;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const tooLarge = (maxBytes: number) => validationFailed({ body: [`The body is over the limit of ${maxBytes} bytes.`] });

/**
 * Reads the body as text, counting the bytes actually received (a chunked or unframed body has no Content-Length to
 * trust) and stopping at the first byte over `maxBytes`, then decodes it as strict UTF-8. A declared length over the
 * limit is refused before anything is read. The text is handed to Hono's body cache, so `c.req.json()` and
 * `c.req.text()` read it again without touching the stream.
 */
export async function readBody(c: Context<AppEnv>, maxBytes: number): Promise<string> {
  const cache = c.req.bodyCache as Record<string, Promise<unknown> | undefined>;
  if (cache.text) return (await cache.text) as string;
  const declared = c.req.header("Content-Length");
  if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  const stream = c.req.raw.body;
  let bytes = new Uint8Array(0);
  if (stream) {
    const reader = stream.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
      parts.push(value);
    }
    bytes = new Uint8Array(size);
    let offset = 0;
    for (const part of parts) bytes.set(part, offset), (offset += part.byteLength);
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw validationFailed({ body: ["The body is not valid UTF-8."] });
  }
  cache.text = Promise.resolve(text);
  return text;
}
