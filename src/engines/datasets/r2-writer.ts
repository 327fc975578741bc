/**
 * Writes a stream of unknown length into R2 as a multipart upload (R2's `put` needs a known length; a publisher's
 * chunked response or a decompressed stream has none). Parts are 8 MiB, R2's minimum being 5 MiB for all but the last:
 * memory held is one part.
 */
const PART_BYTES = 8 * 1024 * 1024;

export async function putStream(bucket: R2Bucket, key: string, stream: ReadableStream<Uint8Array>): Promise<number> {
  const upload = await bucket.createMultipartUpload(key);
  const parts: R2UploadedPart[] = [];
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let total = 0;
  const flush = async () => {
    const part = new Uint8Array(pendingBytes);
    let at = 0;
    for (const piece of pending) {
      part.set(piece, at);
      at += piece.byteLength;
    }
    pending = [];
    pendingBytes = 0;
    parts.push(await upload.uploadPart(parts.length + 1, part));
  };
  try {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending.push(value);
      pendingBytes += value.byteLength;
      total += value.byteLength;
      if (pendingBytes >= PART_BYTES) await flush();
    }
    if (pendingBytes > 0 || parts.length === 0) await flush();
    await upload.complete(parts);
    return total;
  } catch (err) {
    await upload.abort().catch(() => {});
    throw err;
  }
}

/** `length` bytes of an object from `offset` (fewer at its end). */
export async function readRange(bucket: R2Bucket, key: string, offset: number, length: number): Promise<Uint8Array> {
  const object = await bucket.get(key, { range: { offset, length } });
  if (!object) throw new Error(`staged file ${key} is gone`);
  return new Uint8Array(await object.arrayBuffer());
}
