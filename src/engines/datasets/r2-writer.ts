/**
 * Writes a stream of unknown length into R2 as a multipart upload (R2's `put` needs a known length; a publisher's
 * chunked response or a decompressed stream has none). R2 wants every part but the last of one size (at least 5 MiB):
 * parts are exactly 8 MiB, filled from the stream's chunks whatever their sizes. Memory held is one part.
 */
const PART_BYTES = 8 * 1024 * 1024;

export async function putStream(
  bucket: R2Bucket,
  key: string,
  stream: ReadableStream<Uint8Array>,
  partBytes = PART_BYTES,
): Promise<number> {
  const upload = await bucket.createMultipartUpload(key);
  const parts: R2UploadedPart[] = [];
  let part = new Uint8Array(partBytes);
  let filled = 0;
  let total = 0;
  const flush = async (bytes: Uint8Array) => {
    parts.push(await upload.uploadPart(parts.length + 1, bytes));
  };
  try {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      for (let at = 0; at < value.byteLength; ) {
        const take = Math.min(partBytes - filled, value.byteLength - at);
        part.set(value.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === partBytes) {
          await flush(part);
          part = new Uint8Array(partBytes);
          filled = 0;
        }
      }
    }
    if (filled > 0 || parts.length === 0) await flush(part.subarray(0, filled));
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
