/**
 * Random tokens, ids and SHA-256 digests: shared by the key checks (src/auth) and the engines (bulk input hashes, mail
 * links, webhook secrets), so they live below both.
 */
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomToken(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// Imported keys by secret: every request signs its id, so a key is imported once per isolate, not per request. The
// key itself is kept, never the pending import: a promise made in one request cannot be awaited from another (or from
// a Durable Object), which workerd refuses as I/O on behalf of a different context. Webhook endpoints each have a
// secret of their own: past 64 secrets the cache starts again rather than grow.
const hmacKeys = new Map<string, CryptoKey>();
async function hmacKey(secret: string): Promise<CryptoKey> {
  const kept = hmacKeys.get(secret);
  if (kept) return kept;
  const raw = new TextEncoder().encode(secret);
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  if (hmacKeys.size >= 64) hmacKeys.clear();
  hmacKeys.set(secret, key);
  return key;
}

/** Lowercase hex HMAC-SHA256 of `message` under `secret` (request ids, webhook and sidecar signatures). */
export async function hmacHex(secret: string, message: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), new TextEncoder().encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export const newId = (prefix: string) => `${prefix}_${randomToken(20)}`;
