import { parseIp, rangeKey } from "../../../platform/ip-address";
import { dayOf, every, LIST_SANITY, source, WHOLE, type IpImporter } from "./importer";

/**
 * The Tor Project's exit list, either edition: `exit-addresses` (`ExitNode <fingerprint>`, `Published`, `LastStatus`,
 * `ExitAddress <ip> <date> <time>` lines per relay) or the bulk list (`torbulkexitlist`: one address a line). The real
 * list names every exit the Tor Project's scanners saw in the last day, so it is `full`: an address it does not list
 * is `tor` false. The version is the day of the latest `LastStatus` / `ExitAddress` time when the file states one.
 */
export const torImporter: IpImporter = {
  dataset: "ip-tor-exits",
  publisher: "The Tor Project",
  sources: [source("REFRESH_URL_IP_TOR_EXITS", "https://check.torproject.org/exit-addresses")],
  format: WHOLE,
  formatName: "Tor exit-addresses (ExitNode / ExitAddress lines) or the bulk exit list (one address a line)",
  cadence: every("hour"),
  sanity: LIST_SANITY,
  license: "public (The Tor Project, Inc.)",
  coverage: { kind: "full", note: "every exit relay seen by the Tor Project's exit scanners in the last 24 hours" },
  sample: "tor-exit-addresses.sample.txt",
  parse(text) {
    const keys = new Set<string>();
    let skipped = 0;
    let latest: string | null = null;
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) continue;
      const [word, value, date] = line.split(/\s+/);
      if (word === "ExitNode" || word === "Published") continue;
      if (word === "LastStatus" || word === "ExitAddress") {
        const day = dayOf(word === "LastStatus" ? value : date);
        if (day && (!latest || day > latest)) latest = day;
        if (word === "LastStatus") continue;
      }
      const ip = parseIp(word === "ExitAddress" ? (value ?? "") : line);
      if (ip) keys.add(rangeKey(ip));
      else skipped += 1;
    }
    return { rows: [...keys].sort(), skipped, version: latest };
  },
};
