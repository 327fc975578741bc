import { z } from "zod";
import type { Product } from "../../engines/product";
import { formatCidr, parseCidr, parseIp } from "../../platform/ip-address";
import { invalidAnswer } from "./answer";
import { IP_DATASETS } from "./datasets";
import { FEEDBACK_WINDOW_DAYS, ipFeedback } from "./feedback";
import { ipKey, lookupAsn, lookupIps, lookupRange } from "./lookup";
import type { AsnAnswer, IpResult, RangeResult } from "./result";
import { isTestIp, TEST_ASN, TEST_IPS, TEST_NETWORK, testAnswer, testAsn } from "./test-values";
import { ipRefreshable } from "./refresh";
import { whole, DELIVERY_FEEDBACK } from "../../engines/sources";

/** What an IP monitor watches (docs/ip.md, "Monitors"): a change of any of these is reported. */
const observe = (r: IpResult) => ({
  country: r.country,
  asn: r.asn,
  hosting: r.hosting,
  tor: r.tor,
  list: r.list ? `${r.list.kind}:${r.list.id}:${r.list.name}` : null,
});

function compare(baseline: Record<string, unknown>, now: Record<string, unknown>) {
  return Object.keys(now).flatMap((field) =>
    baseline[field] === now[field] ? [] : [{ field, from: baseline[field] ?? null, to: now[field] }],
  );
}

const COLUMNS = [
  "ip",
  "valid",
  "version",
  "reserved",
  "reserved_range",
  "placed",
  "country",
  "country_name",
  "continent",
  "city",
  "region",
  "postal_code",
  "latitude",
  "longitude",
  "accuracy_radius_km",
  "asn",
  "as_name",
  "network",
  "hosting",
  "hosting_provider",
  "tor",
  "vpn",
  "proxy",
  "anonymous",
  "list",
  "list_kind",
  "feedback",
  "reason",
  "risk_score",
  "risk_level",
] as const;

/**
 * IP addresses (docs/ip.md): the special-purpose table, then the country, ASN and Tor datasets in D1 and the account's
 * allow and deny lists. Five fresh lookups that place an address cost one credit (the account's prepaid units, exact
 * under concurrency in its credits object); unplaced, reserved, invalid, test and repeat lookups are free.
 */
export const ip: Product<string, IpResult> = {
  name: "ip",
  scope: "ip",
  input: z.string().max(100),
  unitsPerCredit: 5,
  cost: "local",
  normalize: ipKey,
  async local(input) {
    if (!parseIp(input)) return { result: invalidAnswer(input), test: false };
    const test = testAnswer(input);
    return test ? { result: test, test: true } : null;
  },
  lookup: (ctx, inputs) =>
    lookupIps(ctx.env, { accountId: ctx.accountId, inputs, now: ctx.now, known: ctx.feedback }).then((results) =>
      results.map((result) => ({ result })),
    ),
  // Every answer reports the account's latest feedback on the address: read by the walk's first call.
  readsFeedback: { product: "ip", windowMs: FEEDBACK_WINDOW_DAYS * 86_400_000 },
  price: (result) => ({ units: result.placed ? 1 : 0 }),
  repeatable: (result) => result.placed,
  // A repeat is read again (lists and datasets may have changed since) and only its price is waived.
  repeats: "fresh",
  history: {
    row: (r) => ({ value: r.ip, key: r.valid ? r.ip : `invalid:${r.ip}`, verdict: r.risk_level, reason: r.reason }),
    fields: { value: "ip", key: "normalized_ip", verdict: "risk_level" },
    verdicts: ["low", "medium", "high"],
  },
  bulk: {
    field: "ips",
    counters: ["low", "medium", "high"],
    columns: COLUMNS,
    row: (r) => [
      r.ip,
      r.valid,
      r.version,
      r.reserved,
      r.reserved_range,
      r.placed,
      r.country,
      r.country_name,
      r.continent,
      r.city,
      r.region,
      r.postal_code,
      r.latitude,
      r.longitude,
      r.accuracy_radius_km,
      r.asn,
      r.as_name,
      r.network,
      r.hosting,
      r.hosting_provider,
      r.tor,
      r.vpn,
      r.proxy,
      r.anonymous,
      r.list?.name ?? null,
      r.list?.kind ?? null,
      r.feedback?.outcome ?? null,
      r.reason,
      r.risk_score,
      r.risk_level,
    ],
    verdictColumn: "risk_level",
    sampleCounts: { low: 1, medium: 0, high: 1 },
  },
  monitor: {
    entryKey: ipKey,
    observe,
    compare,
    label: (r) => r.ip,
    tally: { placed: (r) => r.placed },
    listField: "ips",
    maxEntries: 1_000,
  },
  feedback: ipFeedback,
  isSample: isTestIp,
  samples: TEST_IPS,
  datasets: [
    "ip-special-purpose",
    ...IP_DATASETS,
    "hosting-asns",
    "country-names",
    "ip-lists",
    DELIVERY_FEEDBACK,
    "ip-test-values",
  ],
  refreshable: ipRefreshable,
  // Versioned by the account's last edit of its lists: a monitor reads its moving as a recheck.
  checked: ["ip-lists"],
};

/**
 * `GET /ip/asn/{asn}` for the walk: 1 credit when the ASN index assigns it a prefix, free otherwise; a repeat within 7
 * days is read again for free. Shares the IP repeat window (keys `asn:N`). AS64496 is its test value.
 */
export const ipAsn: Product<number, AsnAnswer> = {
  name: "ip",
  scope: "ip",
  input: z.int().min(0).max(4_294_967_295),
  unitsPerCredit: 1,
  cost: "local",
  normalize: (asn) => `asn:${asn}`,
  local: async (asn) => (asn === TEST_ASN ? { result: { status: "found", data: testAsn() }, test: true } : null),
  lookup: (ctx, inputs) => Promise.all(inputs.map(async (asn) => ({ result: await lookupAsn(ctx.env, asn) }))),
  price: (answer) => ({ units: answer.status === "found" ? 1 : 0 }),
  repeatable: (answer) => answer.status === "found",
  repeats: "fresh",
  isSample: (asn) => asn === TEST_ASN,
  datasets: ["ip-asn", "ip-country", "hosting-asns", "ip-test-values"],
};

/** A range answer for a block inside 192.0.2.0/24: the canned test networks, free. */
function testRange(cidr: string): RangeResult | null {
  const block = parseCidr(cidr);
  if (block?.ip.version !== 4 || block.bits < TEST_NETWORK.bits || (block.ip.value & ~0xffn) !== TEST_NETWORK.ip.value)
    return null;
  const size = 2 ** (32 - block.bits);
  const first = Number(block.ip.value & 0xffn);
  const last = first + size - 1;
  // The canned networks are the /32s of 192.0.2.1-3; the rest of the test block is documentation, in no dataset.
  const blocks = [1, 2, 3]
    .filter((n) => n >= first && n <= last)
    .map((n) => testAnswer(`192.0.2.${n}`)!)
    .map((a) => ({ start: a.ip, end: a.ip, asn: a.asn, as_name: a.as_name, country: a.country }));
  return {
    cidr: formatCidr(block),
    first: `192.0.2.${first}`,
    last: `192.0.2.${last}`,
    size,
    blocks,
    truncated: false,
    sources: [whole("ip-test-values", "1")],
  };
}

/**
 * `GET /ip/range?cidr=` for the walk: 1 credit when any dataset has a row inside the block, free otherwise; repeats
 * within 7 days are read again for free (keys `range:<cidr>`). Blocks inside 192.0.2.0/24 are test values.
 */
export const ipRange: Product<string, RangeResult> = {
  name: "ip",
  scope: "ip",
  input: z.string().max(100),
  unitsPerCredit: 1,
  cost: "local",
  normalize: (cidr) => `range:${formatCidr(parseCidr(cidr)!)}`,
  local: async (cidr) => {
    const test = testRange(cidr);
    return test ? { result: test, test: true } : null;
  },
  lookup: (ctx, inputs) =>
    Promise.all(inputs.map(async (cidr) => ({ result: await lookupRange(ctx.env, parseCidr(cidr)!) }))),
  price: (answer) => ({ units: answer.blocks.length ? 1 : 0 }),
  repeatable: (answer) => answer.blocks.length > 0,
  repeats: "fresh",
  isSample: (cidr) => testRange(cidr) !== null,
  datasets: ["ip-country", "ip-asn", "ip-test-values"],
};
