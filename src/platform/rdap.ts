import { getDomain } from "tldts";
import bootstrap from "../../datasets/rdap-bootstrap.json";
import { SingleFlight } from "./io-scope";
import { TtlCache } from "./ttl-cache";

/**
 * Domain registration dates over RDAP (RFC 9083). The server for a TLD comes from the shipped IANA bootstrap snapshot;
 * RDAP_BASE_URL, when set, sends every query to one server instead (dev and tests). A domain nobody can answer for
 * gives null, never an error.
 */
export const RDAP_BOOTSTRAP_VERSION = bootstrap.publication.slice(0, 10);
export const RDAP_BOOTSTRAP_RECORDS = bootstrap.services.length;

const DAY_MS = 86_400_000;
const TIMEOUT_MS = 4_000;
const cache = new TtlCache<string | null>(5_000);

const serverByTld = new Map<string, string>();
for (const [tlds, urls] of bootstrap.services as [string[], string[]][]) {
  for (const tld of tlds) if (urls[0]) serverByTld.set(tld, urls[0]);
}

interface RdapDomain {
  events?: { eventAction?: string; eventDate?: string }[];
}

/**
 * What the registry said of a domain: its registration date (YYYY-MM-DD) or null, and whether a registry answered at
 * all (`answered: false`: it was asked and failed or timed out, so the date is unknown rather than absent). A domain
 * no registry is known for, or one the registry does not hold (404), is answered with no date.
 */
export interface Registration {
  date: string | null;
  answered: boolean;
}

/** Concurrent lookups of one domain in one request (a batch) share a single query (io-scope.ts). */
const inFlight = new SingleFlight<Registration>();

export async function registration(host: string, baseOverride: string | undefined): Promise<Registration> {
  const domain = getDomain(host) ?? host;
  const cached = cache.get(domain);
  if (cached !== undefined) return { date: cached, answered: true };
  return inFlight.run(domain, () => queryRegistry(domain, baseOverride));
}

const FAILED: Registration = { date: null, answered: false };

async function queryRegistry(domain: string, baseOverride: string | undefined): Promise<Registration> {
  const base = baseOverride || serverByTld.get(domain.slice(domain.lastIndexOf(".") + 1));
  if (!base) return { date: null, answered: true };
  let date: string | null = null;
  try {
    const response = await fetch(new URL(`domain/${domain}`, base.endsWith("/") ? base : `${base}/`), {
      headers: { Accept: "application/rdap+json" },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (response.status === 404) {
      cache.set(domain, null, DAY_MS);
      return { date: null, answered: true };
    }
    if (!response.ok) return FAILED;
    const body = (await response.json()) as RdapDomain;
    const registered = body.events?.find((e) => e.eventAction === "registration")?.eventDate;
    date = registered && !Number.isNaN(Date.parse(registered)) ? new Date(registered).toISOString().slice(0, 10) : null;
  } catch {
    return FAILED;
  }
  cache.set(domain, date, DAY_MS);
  return { date, answered: true };
}

export const ageInDays = (date: string | null, now = Date.now()) =>
  date === null ? null : Math.max(0, Math.floor((now - Date.parse(`${date}T00:00:00Z`)) / DAY_MS));
