// The lab's known world: which listener serves which domain, and the truth of every test address (truth.tsv). The
// Postfix maps, postgrey's whitelist and the DNS stand-in's zone are all derived from here, so they cannot disagree.
import { readFileSync } from "node:fs";
import type { ZoneEntry } from "../fixtures/doh.ts";

export type Truth = "exists" | "not" | "full" | "disabled" | "catch-all-unknown";
export type AddressSet = "single" | "list" | "stream" | "list100";
export interface TruthRow {
  address: string;
  domain: string;
  truth: Truth;
  set: AddressSet;
}

/** One smtpd listener of master.cf.template (same name as its syslog_name) and the domains whose MX points at it. */
export interface Listener {
  name: string;
  ip: string;
  domains: string[];
  /** The domains are virtual alias domains with an `@domain` wildcard: every RCPT is accepted. */
  catchAll?: true;
  /** postgrey answers for these domains' accepted recipients (real mailboxes of a catch-all are whitelisted). */
  greylist?: true;
}

export const LISTENERS: Listener[] = [
  { name: "stock", ip: "127.0.0.11", domains: ["stock.example"] },
  { name: "catchall", ip: "127.0.0.12", domains: ["catchall.example"], catchAll: true },
  { name: "grey", ip: "127.0.0.13", domains: ["grey.example"], greylist: true },
  { name: "greycatch", ip: "127.0.0.14", domains: ["greycatch.example"], catchAll: true, greylist: true },
  { name: "slow", ip: "127.0.0.15", domains: ["slow.example"], catchAll: true },
  { name: "helo", ip: "127.0.0.16", domains: ["helo.example"] },
  { name: "sender", ip: "127.0.0.17", domains: ["sender.example"] },
  { name: "conn", ip: "127.0.0.18", domains: ["conn.example"] },
  { name: "rcptrate", ip: "127.0.0.19", domains: ["rcptrate.example"] },
  { name: "rcptlimit", ip: "127.0.0.20", domains: ["rcptlimit.example"] },
  { name: "stream", ip: "127.0.0.21", domains: ["stream.example"] },
  { name: "list", ip: "127.0.0.22", domains: ["list.example"] },
];

/** The prober's names (the sidecar's SMTP_HELO_NAME and SMTP_MAIL_FROM); the helo and sender listeners refuse them. */
export const HELO_NAME = "verify.lab.example";
export const MAIL_FROM = `probe@${HELO_NAME}`;

const TRUTHS = new Set<string>(["exists", "not", "full", "disabled", "catch-all-unknown"]);
const SETS = new Set<string>(["single", "list", "stream", "list100"]);

export function listenerOf(domain: string): Listener {
  const listener = LISTENERS.find((l) => l.domains.includes(domain));
  if (!listener) throw new Error(`truth.tsv: no listener serves ${domain}`);
  return listener;
}

/** truth.tsv, checked: known truths and sets, a listener for every domain, catch-all truths only on catch-alls. */
export function readTruth(path = new URL("./truth.tsv", import.meta.url)): TruthRow[] {
  const rows: TruthRow[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    const [address = "", truth = "", set = ""] = line.split("\t");
    const domain = address.split("@")[1] ?? "";
    if (!TRUTHS.has(truth) || !SETS.has(set)) throw new Error(`truth.tsv: bad line ${JSON.stringify(line)}`);
    const catchAll = listenerOf(domain).catchAll === true;
    const fits = catchAll ? truth === "exists" || truth === "catch-all-unknown" : truth !== "catch-all-unknown";
    if (!fits) throw new Error(`truth.tsv: ${address} is ${truth} on a ${catchAll ? "catch-all" : "mailbox"} domain`);
    rows.push({ address, domain, truth: truth as Truth, set: set as AddressSet });
  }
  return rows;
}

/** The texthash maps main.cf.template names, by file name. */
export function postfixMaps(rows: TruthRow[]): Record<string, string> {
  const lines = (entries: string[]) => entries.map((entry) => `${entry}\n`).join("");
  const mailboxDomains = LISTENERS.filter((l) => !l.catchAll).flatMap((l) => l.domains);
  const aliasDomains = LISTENERS.filter((l) => l.catchAll).flatMap((l) => l.domains);
  const existing = rows.filter((r) => r.truth !== "not" && r.truth !== "catch-all-unknown");
  const mailboxes = existing.filter((r) => !aliasDomains.includes(r.domain));
  // Full mailboxes alternate between the permanent (552 5.2.2) and the temporary (452 4.2.2) quota reply.
  const full = rows.filter((r) => r.truth === "full");
  const access = [
    ...full.map((r, i) => `${r.address} ${i % 2 ? "452 4.2.2" : "552 5.2.2"} Mailbox is full`),
    ...rows.filter((r) => r.truth === "disabled").map((r) => `${r.address} 550 5.2.1 Mailbox disabled`),
  ];
  return {
    "mailbox-domains": lines(mailboxDomains.map((d) => `${d} lab`)),
    mailboxes: lines(mailboxes.map((r) => `${r.address} ${r.domain}/${r.address.split("@")[0]}/`)),
    "alias-domains": lines(aliasDomains.map((d) => `${d} lab`)),
    // Real mailboxes of a catch-all are listed, everything else lands in one sink mailbox.
    aliases: lines([
      ...existing.filter((r) => aliasDomains.includes(r.domain)).map((r) => `${r.address} ${r.address}`),
      ...aliasDomains.map((d) => `@${d} ${mailboxes[0]?.address ?? "sink@stock.example"}`),
    ]),
    "recipient-access": lines(access),
    // What reject_unknown_helo_hostname and reject_unknown_sender_domain answer for a name DNS does not know.
    "helo-access": lines([`${HELO_NAME} 450 4.7.1 Host not found`]),
    "sender-access": lines([`${HELO_NAME} 450 4.1.8 Domain not found`]),
  };
}

/** postgrey's --whitelist-recipients: the real mailboxes of greylisting catch-alls (long known to that server). */
export function greylistWhitelist(rows: TruthRow[]): string {
  const domains = LISTENERS.filter((l) => l.greylist && l.catchAll).flatMap((l) => l.domains);
  return rows
    .filter((r) => domains.includes(r.domain) && r.truth === "exists")
    .map((r) => `${r.address}\n`)
    .join("");
}

/** The DNS-over-HTTPS zone: each domain's MX host, and that host's A record on its listener's loopback address. */
export function dnsZone(): Record<string, ZoneEntry> {
  const zone: Record<string, ZoneEntry> = {};
  for (const listener of LISTENERS) {
    for (const domain of listener.domains) {
      zone[domain] = { MX: [`10 mx.${domain}.`], TXT: ["v=spf1 mx -all"] };
      zone[`mx.${domain}`] = { A: [listener.ip] };
    }
  }
  return zone;
}
