import { SingleFlight } from "./io-scope";
import { TtlCache } from "./ttl-cache";

/**
 * DNS over HTTPS with the JSON wire format (`application/dns-json`, RFC 8484's JSON sibling served by Cloudflare and
 * Google). The resolver is the DOH_URL var, so tests and dev point it at a local fixture. Answers are cached for their
 * TTL; failures are not cached and come back as `status: "error"`, never as an exception.
 */
export type DnsType = "A" | "AAAA" | "MX" | "TXT";

export interface DnsAnswer {
  status: "ok" | "nxdomain" | "error";
  /** `data` of each answer record of the asked type, as the resolver printed it. */
  records: string[];
}

interface DohJson {
  Status: number;
  Answer?: { name: string; type: number; TTL: number; data: string }[];
}

const TYPE_CODES: Record<DnsType, number> = { A: 1, AAAA: 28, MX: 15, TXT: 16 };
const NEGATIVE_TTL_S = 300;
const MAX_TTL_S = 86_400;
const QUERY_TIMEOUT_MS = 3_000;

const cache = new TtlCache<DnsAnswer>();
/** Concurrent lookups of one name in one request (a batch at one domain) share a single query (io-scope.ts). */
const inFlight = new SingleFlight<DnsAnswer>();

export async function resolve(dohUrl: string, name: string, type: DnsType): Promise<DnsAnswer> {
  const key = `${type} ${name}`;
  const cached = cache.get(key);
  if (cached) return cached;
  return inFlight.run(key, () => queryResolver(dohUrl, name, type, key));
}

async function queryResolver(dohUrl: string, name: string, type: DnsType, key: string): Promise<DnsAnswer> {
  const url = new URL(dohUrl);
  url.searchParams.set("name", name);
  url.searchParams.set("type", type);
  let body: DohJson;
  try {
    const response = await fetch(url, {
      headers: { Accept: "application/dns-json" },
      signal: AbortSignal.timeout(QUERY_TIMEOUT_MS),
    });
    if (!response.ok) return { status: "error", records: [] };
    body = (await response.json()) as DohJson;
  } catch {
    return { status: "error", records: [] };
  }
  if (body.Status !== 0 && body.Status !== 3) return { status: "error", records: [] };
  const matching = (body.Answer ?? []).filter((record) => record.type === TYPE_CODES[type]);
  const answer: DnsAnswer = { status: body.Status === 3 ? "nxdomain" : "ok", records: matching.map((r) => r.data) };
  const ttl = matching.length ? Math.min(MAX_TTL_S, ...matching.map((r) => r.TTL)) : NEGATIVE_TTL_S;
  cache.set(key, answer, ttl * 1000);
  return answer;
}

export interface MxRecord {
  preference: number;
  host: string;
}

/** `10 mx1.example.com.` -> {preference: 10, host: "mx1.example.com"}; the null MX `0 .` keeps host "". */
export function parseMx(data: string): MxRecord | null {
  const match = /^(\d+)\s+(\S+)$/.exec(data.trim());
  if (!match) return null;
  return { preference: Number(match[1]), host: match[2]!.replace(/\.$/, "").toLowerCase() };
}

/** TXT data arrives as one or more quoted chunks; a record is their concatenation. */
export function joinTxt(data: string): string {
  const chunks = [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, "$1"));
  return chunks.length ? chunks.join("") : data;
}
