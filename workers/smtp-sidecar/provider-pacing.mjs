// Which MX hosts are a large mail provider's, paced by what that provider tolerates rather than by a small server's
// stock defences (docs/email.md, "Pacing"). The names come from the dataset the Worker reads for `mx_provider`
// (datasets/snapshots/mx-provider-patterns.json: an MX host name matches a suffix when it equals it or ends with
// "." + suffix, first entry winning). A host name under a provider's own DNS zone resolves only to that provider's
// servers, so a small server cannot borrow the faster pace; an IP literal MX never matches.
import { readFileSync } from "node:fs";

const SNAPSHOT_URL = new URL("../../datasets/snapshots/mx-provider-patterns.json", import.meta.url);

/**
 * Mailbox providers that receive the whole internet's mail on many MX hosts with limits sized for it, run no fail2ban
 * against unknown recipients, and say so in words when they throttle a client (Gmail's `421 4.7.0 ... unusual rate`,
 * `450 4.2.1 ... receiving mail at a rate`, Yahoo's `421 4.7.0 [TSS04]`, Microsoft's `4.7.x`), which the sidecar reads
 * as a refusal of the prober and backs off. Security gateways (Mimecast, Proofpoint, Cisco, ...) and hosting
 * providers are left out: their tenants' directory-harvest limits are set per tenant and may ban silently.
 */
const LARGE_PROVIDERS = new Set([
  "google",
  "microsoft",
  "yahoo",
  "icloud",
  "proton",
  "yandex",
  "mailru",
  "gmx",
  "zoho",
  "fastmail",
]);

/** @type {{ provider: string, suffixes: string[] }[]} */
const PATTERNS = JSON.parse(readFileSync(SNAPSHOT_URL, "utf8")).data;

/** The `mx-provider-patterns` provider of an MX host name, or null. */
export function providerOf(host) {
  const name = host.toLowerCase().replace(/\.$/, "");
  const entry = PATTERNS.find(({ suffixes }) => suffixes.some((s) => name === s || name.endsWith(`.${s}`)));
  return entry?.provider ?? null;
}

/** Whether an MX host is a large provider's (`LARGE_PROVIDERS`). */
export const isLargeProvider = (host) => LARGE_PROVIDERS.has(providerOf(host) ?? "");
