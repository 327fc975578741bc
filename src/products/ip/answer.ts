import { isExhaustive, isSample } from "../../db/coverage";
import type { LatestFeedback } from "../../engines/lists/feedback-shape";
import { installedSource, whole, type Source, DELIVERY_FEEDBACK } from "../../engines/sources";
import { blockHolding, formatCidr, fromRangeKey, type IpAddress } from "../../platform/ip-address";
import type { Classification } from "../../platform/special-addresses";
import { SPECIAL_RANGES_VERSION } from "../../platform/special-addresses";
import { HOSTING_DATASETS, isHostingDataset, isProxyDataset, isVpnDataset, SIGNAL_DATASETS } from "./datasets";
import { COUNTRY_NAMES_VERSION, countryInfo, HOSTING_ASNS_VERSION, hostingOf } from "./reference";
import { ANYCAST_VERSION, isAnycast } from "./anycast";
import type { CityReason, IpOutcome, IpReason, IpResult, ListMatch } from "./result";
import { withRisk } from "./score";
import { listedSignal, markUndecided } from "./signal-reasons";
import type { InstalledDataset, RangeHit } from "./store";

/** What decided one answer, gathered by lookup.ts. */
export interface Facts {
  ip: IpAddress;
  text: string;
  special: Classification;
  /** Null for a reserved address: no dataset is asked. */
  hit: RangeHit | null;
  installed: Map<string, InstalledDataset>;
  list: (ListMatch & { updatedAt: number }) | null;
  /** The account's latest report on the address within the feedback window. */
  feedback: LatestFeedback | null;
}

const source = (installed: Map<string, InstalledDataset>, name: string): Source[] => {
  const dataset = installed.get(name);
  return dataset ? [installedSource(name, dataset)] : [];
};

/** How far the installed country dataset answers for an address it does not place (src/db/coverage.ts). */
type CountryCoverage = "none" | "partial" | "full";

const countryCoverage = (dataset: InstalledDataset | undefined): CountryCoverage =>
  !dataset ? "none" : isExhaustive(dataset.coverage) ? "full" : "partial";

function reasonOf(
  a: Pick<IpResult, "reserved" | "tor" | "vpn" | "hosting" | "placed" | "list" | "feedback" | "anycast">,
  country: CountryCoverage,
  fromSample: boolean,
): IpReason | null {
  if (a.list?.kind === "deny") return "deny_list";
  if (a.list?.kind === "allow") return "allow_list";
  if (a.feedback && a.feedback.outcome !== "legit") return "reported";
  if (a.reserved) return "reserved";
  if (a.tor) return "tor_exit";
  if (a.vpn) return "vpn";
  // Why no country is given comes before the hosting its operator is (the risk still counts it).
  if (a.anycast) return "anycast";
  if (a.hosting) return "hosting";
  if (country === "none") return "dataset_not_installed";
  if (a.placed) return fromSample ? "sample_data" : null;
  // A sample or part of the country file does not know where the rest of the addresses are: no guess, no negative.
  return country === "full" ? "unplaced" : "not_covered";
}

/** Why an answer with a country has no city, or null when it has one (docs/ip.md, "The answer"). */
function cityReason(f: Facts, country: string | null, anycast: boolean): CityReason | null {
  if (anycast) return "anycast";
  if (country === null) return "not_placed";
  const cities = f.installed.get("ip-city");
  if (!cities) return "dataset_not_installed";
  if (!f.hit?.city) return isExhaustive(cities.coverage) ? "not_in_dataset" : "not_covered";
  return f.hit.city.country === country ? null : "country_mismatch";
}

/** The matched range as CIDR: the routed (ASN) range when there is one, else the country range. */
function networkOf(ip: IpAddress, hit: RangeHit): string | null {
  const range = hit.asn ?? hit.country;
  return range ? formatCidr(blockHolding(fromRangeKey(range.start), fromRangeKey(range.end), ip)) : null;
}

/** Whether a synthetic sample placed the address: its country, AS or city row came from a `sample` table. */
function placedBySample(f: Facts, cityShown: boolean): boolean {
  const sample = (name: string) => isSample(f.installed.get(name)?.coverage);
  return (
    (f.hit?.country != null && sample("ip-country")) ||
    (f.hit?.asn != null && sample("ip-asn")) ||
    (cityShown && sample("ip-city"))
  );
}

const HOSTING_ORDER = HOSTING_DATASETS as readonly string[];
const SIGNAL_ORDER = SIGNAL_DATASETS as readonly string[];

/** One answer from its facts: reserved addresses never take a dataset's country, network or flags. */
export function buildAnswer(f: Facts): IpResult {
  const hit = f.hit;
  // Announced from many countries at once: a registry's country would be a guess presented as a place.
  const anycast = hit !== null && isAnycast(f.ip);
  const country = anycast ? null : (hit?.country?.country ?? null);
  const asn = hit?.asn?.asn ?? null;
  const torList = f.installed.get("ip-tor-exits");
  const placed = country !== null;
  const installedLists = SIGNAL_ORDER.flatMap((name) => f.installed.get(name) ?? []);
  const provider =
    hit?.signals
      .filter((s) => isHostingDataset(s.dataset))
      .sort((a, b) => HOSTING_ORDER.indexOf(a.dataset) - HOSTING_ORDER.indexOf(b.dataset))[0] ?? null;
  const byAsn = hit ? hostingOf(asn) : null;
  // A city is shown only inside the country the answer gives: where the two files disagree, one of them is wrong
  // about this network, and a city in another country would contradict `country`.
  const city = placed && hit?.city && hit.city.country === country ? hit.city : null;
  const holders = new Set([...(hit?.signals.map((s) => s.dataset) ?? []), ...(hit?.tor ? ["ip-tor-exits"] : [])]);
  const tor = listedSignal(hit, torList ? [torList] : [], holders);
  const vpn = listedSignal(
    hit,
    installedLists.filter((d) => isVpnDataset(d.name)),
    holders,
  );
  const proxy = listedSignal(
    hit,
    installedLists.filter((d) => isProxyDataset(d.name)),
    holders,
  );
  const facts = {
    reserved: f.special.reserved,
    placed,
    hosting: provider ? true : byAsn,
    hosting_provider: provider?.label ?? null,
    tor: tor.value,
    vpn: vpn.value,
    proxy: proxy.value,
    list: f.list ? { id: f.list.id, name: f.list.name, kind: f.list.kind } : null,
    anycast: anycast ? (true as const) : null,
    feedback: f.feedback
      ? { outcome: f.feedback.outcome as IpOutcome, reported_at: new Date(f.feedback.at).toISOString() }
      : null,
  };
  const info = country ? countryInfo(country) : { name: null, continent: null };
  const consulted: Source[] = [
    whole("ip-special-purpose", SPECIAL_RANGES_VERSION),
    ...(hit
      ? [
          ...source(f.installed, "ip-country"),
          ...source(f.installed, "ip-asn"),
          ...source(f.installed, "ip-city"),
          ...source(f.installed, "ip-tor-exits"),
        ]
      : []),
    ...(hit ? installedLists.map((d) => installedSource(d.name, d)) : []),
    ...(placed ? [whole("country-names", COUNTRY_NAMES_VERSION)] : []),
    // A curated list, not every anycast network: cited as `partial` where it decided the answer.
    ...(anycast ? [{ dataset: "anycast-networks", version: ANYCAST_VERSION, coverage: "partial" as const }] : []),
    ...(byAsn !== null ? [whole("hosting-asns", HOSTING_ASNS_VERSION)] : []),
    ...(f.list ? [whole("ip-lists", new Date(f.list.updatedAt).toISOString())] : []),
    ...(facts.feedback ? [whole(DELIVERY_FEEDBACK, facts.feedback.reported_at)] : []),
  ];
  // What each range file or list decided: the row it holds for the address (a complete file's "no" is decided too).
  const holds: Record<string, boolean> = {
    "ip-country": hit?.country != null,
    "ip-asn": hit?.asn != null,
    "ip-city": city !== null,
  };
  const sources = markUndecided(consulted, (name) => holds[name] ?? holders.has(name), f.installed);
  return withRisk({
    ip: f.text,
    version: f.ip.version,
    valid: true,
    reserved: facts.reserved,
    reserved_range: f.special.reservedRange,
    reserved_name: f.special.reservedName,
    placed,
    country,
    country_name: info.name,
    continent: info.continent,
    city: city?.city ?? null,
    region: city?.region ?? null,
    postal_code: city?.postal_code ?? null,
    latitude: city?.latitude ?? null,
    longitude: city?.longitude ?? null,
    accuracy_radius_km: city?.accuracy_radius_km ?? null,
    city_reason: cityReason(f, country, anycast),
    asn,
    as_name: hit?.asn?.name ?? null,
    network: hit ? networkOf(f.ip, hit) : null,
    anycast: facts.anycast,
    hosting: facts.hosting,
    hosting_provider: facts.hosting_provider,
    tor: facts.tor,
    vpn: facts.vpn,
    // From an open-proxy list only: a VPN list does not say whether an address is an open proxy.
    proxy: facts.proxy,
    tor_reason: tor.reason,
    vpn_reason: vpn.reason,
    proxy_reason: proxy.reason,
    // Known true when any signal says so; false when none does and at least one was checked; null when none could be.
    anonymous: [facts.tor, facts.vpn, facts.proxy].includes(true)
      ? true
      : [facts.tor, facts.vpn, facts.proxy].includes(false)
        ? false
        : null,
    list: facts.list,
    feedback: facts.feedback,
    reason: reasonOf(
      facts,
      hit === null ? "full" : countryCoverage(f.installed.get("ip-country")),
      placedBySample(f, city !== null),
    ),
    sources,
  });
}

/** An answer that knows nothing yet: what the invalid answer and the test values start from. */
export const UNKNOWN: Omit<IpResult, "risk_score" | "risk_components" | "risk_level"> = {
  ip: "",
  version: null,
  valid: false,
  reserved: false,
  reserved_range: null,
  reserved_name: null,
  placed: false,
  country: null,
  country_name: null,
  continent: null,
  city: null,
  region: null,
  postal_code: null,
  latitude: null,
  longitude: null,
  accuracy_radius_km: null,
  city_reason: "not_placed",
  asn: null,
  as_name: null,
  network: null,
  anycast: null,
  hosting: null,
  hosting_provider: null,
  tor: null,
  vpn: null,
  proxy: null,
  tor_reason: "not_checked",
  vpn_reason: "not_checked",
  proxy_reason: "not_checked",
  anonymous: null,
  list: null,
  feedback: null,
  reason: null,
  sources: [],
};

/** A value that is not an IP address: free, no dataset asked. */
export const invalidAnswer = (input: string): IpResult =>
  withRisk({ ...UNKNOWN, ip: input.trim(), reason: "invalid_ip" });
