/**
 * Where a delivery's frozen body lives. D1 caps a row at 2 MB, and a monitor run's body can reach a few megabytes (500
 * long address changes), so a body over `INLINE_BODY_BYTES` goes to R2 (the RESULTS bucket, beside bulk results) and
 * its row keeps only the object's key. Either way every attempt and redelivery posts the same bytes.
 */
export const INLINE_BODY_BYTES = 1024 * 1024;
const PREFIX = "webhooks/";

export const byteLength = (text: string) => new TextEncoder().encode(text).byteLength;

/** The row's `body` and `bodyKey` for `body`: inline, or written to R2 first (a row never names a missing object). */
export async function freezeBody(env: Env, body: string): Promise<{ body: string; bodyKey: string | null }> {
  if (byteLength(body) <= INLINE_BODY_BYTES) return { body, bodyKey: null };
  const bodyKey = `${PREFIX}${crypto.randomUUID()}.json`;
  await env.RESULTS.put(bodyKey, body, { httpMetadata: { contentType: "application/json" } });
  return { body: "", bodyKey };
}

/** The frozen body of a row; null when its R2 object is gone (nothing can be sent). */
export async function frozenBody(env: Env, row: { body: string; bodyKey: string | null }): Promise<string | null> {
  if (!row.bodyKey) return row.body;
  const object = await env.RESULTS.get(row.bodyKey);
  return object ? object.text() : null;
}

/** Deletes the R2 bodies of swept rows (R2 takes 1,000 keys a call). */
export async function dropBodies(env: Env, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) await env.RESULTS.delete(keys.slice(i, i + 1000));
}
