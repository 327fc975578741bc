import { readRange } from "./r2-writer";

/**
 * Finds a member of a zip archive staged in R2 (GLEIF's golden copy, Companies House's one-file edition) by its central
 * directory, so the member is read as one ranged stream without unpacking the archive. ZIP64 archives (members over
 * 4 GiB: GLEIF's CSV inflates to several) are read through their ZIP64 records.
 */
export interface ZipMember {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  dataOffset: number;
  compressedSize: number;
}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX = 0xffffffff;

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const u64 = (v: DataView, at: number) => Number(v.getBigUint64(at, true));

/**
 * Members whose names match `wanted`, in the central directory's order: every one (`all`: OS Open Names' hundreds of
 * grid-square files), else the first. Throws when none matches.
 */
export async function findZipMembers(
  bucket: R2Bucket,
  archive: { key: string; size: number; wanted: RegExp | undefined; all: boolean },
): Promise<ZipMember[]> {
  const { key, size, wanted, all } = archive;
  const members: ZipMember[] = [];
  const tailLength = Math.min(size, 65_557);
  const tail = await readRange(bucket, key, size - tailLength, tailLength);
  const t = view(tail);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (t.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("not a zip archive (no end of central directory)");
  let entries = t.getUint16(eocd + 10, true);
  let cdSize = t.getUint32(eocd + 12, true);
  let cdOffset = t.getUint32(eocd + 16, true);
  if (cdOffset === MAX || entries === 0xffff) {
    const locator = eocd - 20;
    if (locator < 0 || t.getUint32(locator, true) !== EOCD64_LOCATOR)
      throw new Error("zip64 archive without its locator");
    const record = view(await readRange(bucket, key, u64(t, locator + 8), 56));
    entries = u64(record, 32);
    cdSize = u64(record, 40);
    cdOffset = u64(record, 48);
  }
  const cd = await readRange(bucket, key, cdOffset, cdSize);
  const c = view(cd);
  const decoder = new TextDecoder();
  let at = 0;
  for (let n = 0; n < entries && at + 46 <= cd.length; n++) {
    if (c.getUint32(at, true) !== CENTRAL) throw new Error("corrupt zip central directory");
    const method = c.getUint16(at + 10, true);
    let compressedSize = c.getUint32(at + 20, true);
    const uncompressed = c.getUint32(at + 24, true);
    const nameLength = c.getUint16(at + 28, true);
    const extraLength = c.getUint16(at + 30, true);
    const commentLength = c.getUint16(at + 32, true);
    let localOffset = c.getUint32(at + 42, true);
    const name = decoder.decode(cd.subarray(at + 46, at + 46 + nameLength));
    // ZIP64 extra field: 8-byte values, in this order, for each 32-bit field that holds 0xFFFFFFFF.
    for (let e = at + 46 + nameLength; e + 4 <= at + 46 + nameLength + extraLength; ) {
      const id = c.getUint16(e, true);
      const length = c.getUint16(e + 2, true);
      if (id === 1) {
        let f = e + 4;
        if (uncompressed === MAX) f += 8;
        if (compressedSize === MAX) (compressedSize = u64(c, f)), (f += 8);
        if (localOffset === MAX) localOffset = u64(c, f);
      }
      e += 4 + length;
    }
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith("/") || (wanted && !wanted.test(name))) continue;
    if (!all && members.length) break;
    const local = view(await readRange(bucket, key, localOffset, 30));
    if (local.getUint32(0, true) !== LOCAL) throw new Error(`corrupt zip member ${name}`);
    const dataOffset = localOffset + 30 + local.getUint16(26, true) + local.getUint16(28, true);
    if (method !== 0 && method !== 8)
      throw new Error(`zip member ${name} uses compression method ${method} (stored or deflated only)`);
    members.push({ name, method, dataOffset, compressedSize });
  }
  if (members.length) return members;
  throw new Error(wanted ? `the zip archive has no member matching ${wanted}` : "the zip archive is empty");
}
