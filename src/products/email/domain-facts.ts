import { joinTxt, parseMx, resolve, type MxRecord } from "../../platform/doh";
import { ageInDays, registration } from "../../platform/rdap";
import { liveSource, type Source } from "../../engines/sources";
import { mxProviderPatterns } from "./datasets";
import type { DmarcPolicy } from "./result";

/** What DNS and RDAP say about a mail domain. Null fields are unknown (the resolver or registry did not answer). */
export interface DomainFacts {
  /** False when the resolver could not be reached or failed: mail acceptance is then unknown. */
  dnsAnswered: boolean;
  mxFound: boolean;
  mxImplicit: boolean;
  /** RFC 7505: the domain says it accepts no mail. */
  nullMx: boolean;
  /** Hosts to deliver to, best preference first (the domain itself under the implicit-MX rule). */
  mxHosts: MxRecord[];
  mxProvider: string | null;
  hasSpf: boolean | null;
  dmarcPolicy: DmarcPolicy | null;
  /** A DMARC policy was found (false: the `_dmarc` query was answered without one; null: it got no answer). */
  hasDmarc: boolean | null;
  registeredAt: string | null;
  ageDays: number | null;
  /** False when RDAP was asked and failed: the registration date is unknown, and `rdap-registration` cites `none`. */
  rdapAnswered: boolean;
  /** The offline stand-ins' label when DNS and RDAP are `npm run dev -- --offline`'s stand-ins (sources.ts). */
  standIn?: string;
}

export interface DnsConfig {
  dohUrl: string;
  rdapBaseUrl: string | undefined;
  /** The `LIVE_STAND_INS` var: set under `npm run dev -- --offline`, whose resolver and registry are stand-ins. */
  standIn?: string;
}

/** The `live-dns` and `rdap-registration` entries an answer built on these facts cites (`none` when they failed). */
export function dnsSources(facts: DomainFacts): Source[] {
  const standIn = facts.standIn;
  const sources = [liveSource({ dataset: "live-dns", version: "live", answered: facts.dnsAnswered, standIn })];
  if (facts.registeredAt !== null || !facts.rdapAnswered)
    sources.push(liveSource({ dataset: "rdap-registration", version: "rdap", answered: facts.rdapAnswered, standIn }));
  return sources;
}

export function mxProvider(hosts: readonly MxRecord[]): string | null {
  for (const { host } of hosts) {
    for (const { provider, suffixes } of mxProviderPatterns()) {
      if (suffixes.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return provider;
    }
  }
  return hosts.length ? "other" : null;
}

async function spfAndDmarc(config: DnsConfig, domain: string) {
  const [txt, dmarc] = await Promise.all([
    resolve(config.dohUrl, domain, "TXT"),
    resolve(config.dohUrl, `_dmarc.${domain}`, "TXT"),
  ]);
  const hasSpf = txt.status === "error" ? null : txt.records.map(joinTxt).some((r) => /^v=spf1(\s|$)/i.test(r));
  const record = dmarc.records.map(joinTxt).find((r) => /^v=DMARC1\s*(;|$)/i.test(r));
  const policy = record
    ? ((/(?:^|;)\s*p\s*=\s*(none|quarantine|reject)\s*(;|$)/i.exec(record)?.[1]?.toLowerCase() as
        | DmarcPolicy
        | undefined) ?? null)
    : null;
  return { hasSpf, dmarcPolicy: policy, hasDmarc: dmarc.status === "error" ? null : policy !== null };
}

/**
 * MX (with the null-MX and implicit-MX rules), SPF, DMARC and registration age, queried in parallel. The A/AAAA
 * fallback is only asked for when there is no MX record.
 */
export async function domainFacts(config: DnsConfig, domain: string, now = Date.now()): Promise<DomainFacts> {
  const [mx, policy, rdap] = await Promise.all([
    resolve(config.dohUrl, domain, "MX"),
    spfAndDmarc(config, domain),
    registration(domain, config.rdapBaseUrl),
  ]);
  const base = {
    ...policy,
    registeredAt: rdap.date,
    ageDays: ageInDays(rdap.date, now),
    rdapAnswered: rdap.answered,
    ...(config.standIn ? { standIn: config.standIn } : {}),
  };
  const none = { mxFound: false, mxImplicit: false, nullMx: false, mxHosts: [], mxProvider: null };
  if (mx.status === "error") return { dnsAnswered: false, ...none, ...base };
  if (mx.status === "nxdomain") return { dnsAnswered: true, ...none, ...base };
  const records = mx.records.map(parseMx).filter((r): r is MxRecord => r !== null);
  if (records.length === 1 && records[0]!.host === "") return { dnsAnswered: true, ...none, nullMx: true, ...base };
  const hosts = records.filter((r) => r.host !== "").sort((a, b) => a.preference - b.preference);
  if (hosts.length)
    return {
      dnsAnswered: true,
      mxFound: true,
      mxImplicit: false,
      nullMx: false,
      mxHosts: hosts,
      mxProvider: mxProvider(hosts),
      ...base,
    };
  const [a, aaaa] = await Promise.all([resolve(config.dohUrl, domain, "A"), resolve(config.dohUrl, domain, "AAAA")]);
  if (a.status === "error" && aaaa.status === "error") return { dnsAnswered: false, ...none, ...base };
  if (!a.records.length && !aaaa.records.length) return { dnsAnswered: true, ...none, ...base };
  // RFC 5321 5.1: the domain itself is the mail host. Its addresses are passed on, so the handshake dials exactly what
  // this resolver answered.
  const implicit = [...a.records, ...aaaa.records].map((host) => ({ preference: 0, host }));
  const provider = mxProvider([{ preference: 0, host: domain }]);
  return {
    dnsAnswered: true,
    mxFound: true,
    mxImplicit: true,
    nullMx: false,
    mxHosts: implicit,
    mxProvider: provider,
    ...base,
  };
}
