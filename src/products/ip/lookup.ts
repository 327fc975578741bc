import {
  cidrBounds,
  formatCidr,
  formatIp,
  fromRangeKey,
  parseIp,
  rangeKey,
  rangeToCidrs,
  type Cidr,
} from "../../platform/ip-address";
import { classifyAddress } from "../../platform/special-addresses";
import { buildAnswer, invalidAnswer } from "./answer";
import { FEEDBACK_WINDOW_DAYS } from "./feedback";
import { matchList } from "./lists";
import { hostingOf, HOSTING_ASNS_VERSION } from "./reference";
import type { AsnAnswer, AsnData, IpResult, RangeBlock, RangeResult } from "./result";
import { latestByKey, latestFeedback } from "../../engines/lists/feedback";
import type { LatestFeedback } from "../../engines/lists/feedback-shape";
import { asnRanges, countriesAt, overlappingRanges, readRanges, type InstalledDataset } from "./store";
import { installedSource, whole } from "../../engines/sources";

const DAY_MS = 86_400_000;

/** The repeat, dedupe and monitor key: the normalized address, or the input marked invalid. */
export function ipKey(input: string): string {
  const ip = parseIp(input);
  return ip ? formatIp(ip) : `invalid:${input.trim()}`;
}

/**
 * Answers addresses: the special-purpose table first (a reserved address never reaches a dataset), then one D1 batch
 * for every other address of the list (country, ASN and Tor rows, the installed versions), the account's lists and
 * the latest feedback it reported for each address (reserved ones included).
 */
export async function lookupIps(
  env: Env,
  lookup: {
    accountId: string | null;
    inputs: string[];
    now: number;
    /** The walk's first call read the account's feedback on these keys already. */
    known?: { keys: Set<string>; latest: Map<string, LatestFeedback> };
  },
): Promise<IpResult[]> {
  const { accountId, inputs, now, known } = lookup;
  const parsed = inputs.map((input) => {
    const ip = parseIp(input);
    return ip ? { ip, special: classifyAddress(ip) } : null;
  });
  const asked = parsed.flatMap((p, i) => (p && !p.special.reserved ? [i] : []));
  const reported = {
    keys: parsed.flatMap((p) => (p ? [formatIp(p.ip)] : [])),
    since: now - FEEDBACK_WINDOW_DAYS * DAY_MS,
  };
  // The account's feedback lives in its object (its lists), read beside the datasets.
  const [{ installed, hits, lists }, feedback] = await Promise.all([
    readRanges(
      env.DB,
      asked.map((i) => rangeKey(parsed[i]!.ip)),
      accountId,
    ),
    known && reported.keys.every((key) => known.keys.has(key))
      ? known.latest
      : accountId && reported.keys.length
        ? latestFeedback(env, { accountId, product: "ip", keys: reported.keys, since: reported.since }).then(
            latestByKey,
          )
        : new Map<string, LatestFeedback>(),
  ]);
  const hitOf = new Map(asked.map((inputIndex, n) => [inputIndex, hits[n]!]));
  return inputs.map((input, i) => {
    const p = parsed[i];
    if (!p) return invalidAnswer(input);
    const hit = hitOf.get(i) ?? null;
    const list = matchList(lists, rangeKey(p.ip), hit?.asn?.asn ?? null);
    const text = formatIp(p.ip);
    return buildAnswer({
      ip: p.ip,
      text,
      special: p.special,
      hit,
      installed,
      list,
      feedback: feedback.get(text) ?? null,
    });
  });
}

const sourceOf = (dataset: InstalledDataset | undefined) => (dataset ? [installedSource(dataset.name, dataset)] : []);

/** Address count of a range of keys, as a number while exact, else a decimal string. */
export function countOf(total: bigint): number | string {
  return total <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(total) : total.toString();
}

/**
 * `GET /ip/asn/{asn}`: every range the ASN announces, as CIDR blocks per family, and the country most of its IPv4
 * addresses (else IPv6) are placed in by `ip-country` at each range's first address.
 */
export async function lookupAsn(env: Env, asn: number): Promise<AsnAnswer> {
  const { installed, ranges } = await asnRanges(env.DB, asn);
  const index = installed.get("ip-asn");
  const empty: AsnData = {
    asn,
    name: null,
    country: null,
    prefixes: [],
    prefixes6: [],
    num_ipv4: 0,
    num_ipv6: "0",
    hosting: null,
    sources: sourceOf(index),
  };
  if (!index) return { status: "unavailable", data: empty };
  if (!ranges.length) return { status: "not_found", data: empty };
  const bounds = ranges.map((r) => [fromRangeKey(r.start), fromRangeKey(r.end)] as const);
  const blocks = bounds.flatMap(([first, last]) => rangeToCidrs(first, last));
  const size = (version: 4 | 6) =>
    bounds
      .filter(([first]) => first.version === version)
      .reduce((sum, [first, last]) => sum + last.value - first.value + 1n, 0n);
  const countries = installed.has("ip-country")
    ? await countriesAt(
        env.DB,
        ranges.map((r) => r.start),
      )
    : [];
  const weight = new Map<string, bigint>();
  bounds.forEach(([first, last], i) => {
    const key = `${first.version}:${countries[i]}`;
    if (countries[i]) weight.set(key, (weight.get(key) ?? 0n) + last.value - first.value + 1n);
  });
  const top = (version: 4 | 6) =>
    [...weight]
      .filter(([k]) => k.startsWith(`${version}:`))
      .sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : a[0] < b[0] ? -1 : 1))[0]?.[0]
      .slice(2) ?? null;
  return {
    status: "found",
    data: {
      asn,
      name: ranges.find((r) => r.name)?.name ?? null,
      country: top(4) ?? top(6),
      prefixes: blocks.filter((b) => b.ip.version === 4).map(formatCidr),
      prefixes6: blocks.filter((b) => b.ip.version === 6).map(formatCidr),
      num_ipv4: Number(size(4)),
      num_ipv6: size(6).toString(),
      hosting: hostingOf(asn),
      sources: [
        ...sourceOf(index),
        ...(countries.length ? sourceOf(installed.get("ip-country")) : []),
        whole("hosting-asns", HOSTING_ASNS_VERSION),
      ],
    },
  };
}

export const MAX_RANGE_BLOCKS = 1_000;

/**
 * `GET /ip/range?cidr=`: the block cut at every boundary of either dataset, each piece with its ASN and country (gaps
 * where neither dataset has a row are left out), at most `MAX_RANGE_BLOCKS`.
 */
export async function lookupRange(env: Env, cidr: Cidr): Promise<RangeResult> {
  const [first, last] = cidrBounds(cidr);
  const { installed, countries, asns } = await overlappingRanges(
    env.DB,
    rangeKey(first),
    rangeKey(last),
    MAX_RANGE_BLOCKS + 1,
  );
  const from = BigInt(`0x${rangeKey(first)}`);
  let to = BigInt(`0x${rangeKey(last)}`);
  let truncated = false;
  const parsed = [countries, asns].map((rows) => {
    // Past the rows fetched, boundaries are unknown: stop where the first row not fetched begins.
    if (rows.length > MAX_RANGE_BLOCKS) {
      truncated = true;
      const cut = BigInt(`0x${rows[MAX_RANGE_BLOCKS]!.start}`) - 1n;
      if (cut < to) to = cut;
    }
    return rows
      .slice(0, MAX_RANGE_BLOCKS)
      .map((r) => ({ ...r, from: BigInt(`0x${r.start}`), to: BigInt(`0x${r.end}`) }));
  });
  const [countryRows, asnRows] = parsed as [(typeof parsed)[number], (typeof parsed)[number]];
  const cuts = new Set<bigint>([from]);
  for (const row of [...countryRows, ...asnRows])
    for (const at of [row.from, row.to + 1n]) if (at > from && at <= to) cuts.add(at);
  const starts = [...cuts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const holding = (rows: typeof countryRows, at: bigint) => rows.find((r) => r.from <= at && at <= r.to) ?? null;
  const address = (v: bigint) => formatIp(fromRangeKey(v.toString(16).padStart(32, "0")));
  const blocks: RangeBlock[] = [];
  for (const [n, start] of starts.entries()) {
    const country = holding(countryRows, start);
    const asn = holding(asnRows, start);
    if (!country && !asn) continue;
    if (blocks.length === MAX_RANGE_BLOCKS) {
      truncated = true;
      break;
    }
    const end = (starts[n + 1] ?? to + 1n) - 1n;
    blocks.push({
      start: address(start),
      end: address(end),
      asn: asn ? Number(asn.value) : null,
      as_name: asn?.name ?? null,
      country: country ? String(country.value) : null,
    });
  }
  return {
    cidr: formatCidr(cidr),
    first: formatIp(first),
    last: formatIp(last),
    size: countOf(last.value - first.value + 1n),
    blocks,
    truncated,
    sources: [...sourceOf(installed.get("ip-country")), ...sourceOf(installed.get("ip-asn"))],
  };
}
