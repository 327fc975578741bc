import { putStream } from "./r2-writer";
import type { Compression, SourceFile } from "./refreshable";
import { findZipMembers, type ZipMember } from "./zip";

/**
 * The fetch phase of a refresh: a publisher's file is downloaded into R2 as it arrives (never held whole), then, when
 * compressed, inflated into a second object of plain text that the import steps read in byte ranges. A file the
 * publisher has not changed since the last refresh (ETag / Last-Modified) is not downloaded again.
 */
export interface StagedFile {
  /** The R2 object of plain text the import reads. */
  key: string;
  size: number;
  /** The URL's last path segment after redirects, or the zip member read (they carry the publication date). */
  fileName: string;
  lastModified: string | null;
  /** ETag or Last-Modified, sent back as a condition next time. */
  tag: string | null;
  /**
   * The label a stand-in publisher gives itself in its `X-Stand-In` header (test/fixtures/publishers.ts, as
   * `npm run dev -- --offline` runs it): its rows are a sample's, never the publisher's file (activate.ts).
   */
  standIn?: string;
}

/** The stand-in's label, when the file came from one (`X-Stand-In`); real publishers send no such header. */
function standInOf(response: Response): { standIn?: string } {
  const label = response.headers.get("x-stand-in")?.trim().slice(0, 80);
  return label ? { standIn: label } : {};
}

export class RefreshFailure extends Error {}

/** The URL a source is fetched from: its var when set (anything but empty), else the publisher's default. */
export function sourceUrl(env: Env, source: SourceFile): string {
  const value = (env as unknown as Record<string, unknown>)[source.urlVar];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : source.defaultUrl;
}

/**
 * The URLs to try for a source: `{month}` in it is the first day of this month (2026-11-01), then of the last one, for
 * a publisher that names a monthly file by its date and publishes it some days into the month (Companies House).
 */
export function candidateUrls(url: string, now: number): string[] {
  if (!url.includes("{month}")) return [url];
  const date = new Date(now);
  const month = (offset: number) =>
    new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - offset, 1)).toISOString().slice(0, 10);
  return [url.replaceAll("{month}", month(0)), url.replaceAll("{month}", month(1))];
}

const lastSegment = (url: string) => decodeURIComponent(new URL(url).pathname.split("/").filter(Boolean).pop() ?? "");

function fileNameOf(response: Response, url: string): string {
  const disposition = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(response.headers.get("content-disposition") ?? "");
  return disposition?.[1] ?? lastSegment(response.url || url);
}

/** One source file to stage: where its parts go in R2 (`prefix`), and the last refresh's `tag` (ETag or date). */
export interface Stage {
  source: SourceFile;
  prefix: string;
  tag: string | null;
}

/**
 * Downloads `source` into `prefix`. Returns null when the publisher answered 304 to the `tag` of the last refresh.
 * A publisher's error (any other non-2xx answer, a network failure) is a RefreshFailure: the refresh fails visibly.
 */
export async function stageFile(
  bucket: R2Bucket,
  template: string,
  stage: Stage,
  now = Date.now(),
): Promise<StagedFile | null> {
  const urls = candidateUrls(template, now);
  for (const [i, url] of urls.entries()) {
    try {
      return await stageUrl(bucket, url, stage);
    } catch (err) {
      if (!(err instanceof NotPublished) || i === urls.length - 1) throw err;
    }
  }
  return null;
}

class NotPublished extends RefreshFailure {}

async function stageUrl(bucket: R2Bucket, url: string, stage: Stage): Promise<StagedFile | null> {
  const { source, prefix, tag } = stage;
  const headers = new Headers({ "user-agent": "verification-api dataset refresh" });
  if (tag?.startsWith('"') || tag?.startsWith("W/")) headers.set("if-none-match", tag);
  else if (tag) headers.set("if-modified-since", tag);
  let response: Response;
  try {
    response = await fetch(url, { headers, redirect: "follow" });
  } catch (err) {
    throw new RefreshFailure(`fetching ${url}: ${String(err)}`);
  }
  if (response.status === 304) return null;
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new (response.status === 404 ? NotPublished : RefreshFailure)(`fetching ${url}: HTTP ${response.status}`);
  }
  const lastModified = response.headers.get("last-modified");
  const newTag = response.headers.get("etag") ?? lastModified;
  let fileName = fileNameOf(response, url);
  const rawKey = `${prefix}.raw`;
  const rawSize = await putStream(bucket, rawKey, response.body);
  const compression = rawSize === 0 ? "none" : await sniff(bucket, rawKey, source.compression);
  const marked = standInOf(response);
  if (compression === "none") return { key: rawKey, size: rawSize, fileName, lastModified, tag: newTag, ...marked };

  let members: ZipMember[] | null = null;
  try {
    if (compression === "zip") {
      members = await findZipMembers(bucket, {
        key: rawKey,
        size: rawSize,
        wanted: source.zipEntry,
        all: source.zipAll ?? false,
      });
      // One member: its name carries the publication date (GLEIF, ONSPD); many: the archive's name stands for them.
      if (members.length === 1) fileName = members[0]!.name.split("/").pop() ?? members[0]!.name;
    }
  } catch (err) {
    throw new RefreshFailure(`reading ${fileName || url}: ${String(err)}`);
  }
  const textKey = `${prefix}.txt`;
  let size: number;
  try {
    size = await putStream(
      bucket,
      textKey,
      members
        ? membersText(bucket, rawKey, members)
        : (await bucket.get(rawKey))!.body.pipeThrough(new DecompressionStream("gzip")),
    );
  } catch (err) {
    throw new RefreshFailure(`inflating ${fileName || url}: ${String(err)}`);
  }
  await bucket.delete(rawKey);
  return { key: textKey, size, fileName, lastModified, tag: newTag, ...marked };
}

const LF = new Uint8Array([10]);

/**
 * The inflated text of zip members one after another, read as ranged streams of the staged archive (one member's
 * stream open at a time); a member not ending in a line feed gets one, so the next one's first record stays whole.
 */
function membersText(bucket: R2Bucket, key: string, members: ZipMember[]): ReadableStream<Uint8Array> {
  let index = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let last = 10;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (!reader) {
          const member = members[index];
          if (!member) return controller.close();
          const body = (await bucket.get(key, { range: { offset: member.dataOffset, length: member.compressedSize } }))!
            .body;
          reader = (member.method === 8 ? body.pipeThrough(new DecompressionStream("deflate-raw")) : body).getReader();
          last = 10;
        }
        const { done, value } = await reader.read();
        if (!done) {
          if (value.byteLength === 0) continue;
          last = value[value.byteLength - 1]!;
          return controller.enqueue(value);
        }
        reader = null;
        index += 1;
        if (last !== 10) return controller.enqueue(LF);
      }
    },
    async cancel(reason) {
      await reader?.cancel(reason);
    },
  });
}

/**
 * The file's compression as its first bytes show it (gzip 1f 8b, zip PK\x03\x04), else the declared one: a mirror an
 * operator points a URL var at may serve the publisher's file compressed differently.
 */
async function sniff(bucket: R2Bucket, key: string, declared: Compression): Promise<Compression> {
  const head = await (await bucket.get(key, { range: { offset: 0, length: 4 } }))?.arrayBuffer();
  const b = new Uint8Array(head ?? new ArrayBuffer(0));
  if (b[0] === 0x1f && b[1] === 0x8b) return "gzip";
  if (b[0] === 0x50 && b[1] === 0x4b && b[2] === 3 && b[3] === 4) return "zip";
  return declared === "none" ? "none" : b.length === 0 ? "none" : declared;
}
