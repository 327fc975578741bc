import type { RowReader } from "../../../engines/datasets/refreshable";
import { rangeKey } from "../../../platform/ip-address";
import { torExitAddress } from "../datasets";
import { dayOf, every, source, type IpImporter } from "./importer";

/** Lines of the exit-addresses edition that describe a relay without naming an exit address: not unreadable. */
const RELAY_LINE = /^(ExitNode|Published|LastStatus)\s/;

/**
 * The one Tor list reader (the refresh streams the list a chunk of lines at a time; `parse` reads a whole text with
 * it): each line is an exit's key, a comment or relay line, or unreadable (counted as skipped). Stateless, so a step
 * resumes anywhere; the same exit twice is written once (the table's key).
 */
export const torReader: RowReader<string> = {
  begin: () => ({}),
  read(records) {
    const rows: string[] = [];
    let skipped = 0;
    for (const [raw = ""] of records) {
      const line = raw.trim();
      const ip = torExitAddress(line);
      if (ip) rows.push(rangeKey(ip));
      else if (line !== "" && !line.startsWith("#") && !RELAY_LINE.test(line)) skipped += 1;
    }
    return { rows, skipped };
  },
  end: () => [],
};

/** The day of the latest `LastStatus` / `ExitAddress` time of an exit-addresses text; null for the bulk edition. */
function latestScan(lines: string[]): string | null {
  let latest: string | null = null;
  for (const line of lines) {
    const [word, value, date] = line.trim().split(/\s+/);
    const day = word === "LastStatus" ? dayOf(value) : word === "ExitAddress" ? dayOf(date) : null;
    if (day && (!latest || day > latest)) latest = day;
  }
  return latest;
}

/**
 * The Tor Project's exit list, either edition: `exit-addresses` (`ExitNode <fingerprint>`, `Published`, `LastStatus`,
 * `ExitAddress <ip> <date> <time>` lines per relay) or the bulk list (`torbulkexitlist`: one address a line). The real
 * list names every exit the Tor Project's scanners saw in the last day, so it is `full`: an address it does not list
 * is `tor` false. `parse` dates the file by its latest scan; the refresh by the file's Last-Modified.
 */
export const torImporter: IpImporter = {
  dataset: "ip-tor-exits",
  publisher: "The Tor Project",
  sources: [source("REFRESH_URL_IP_TOR_EXITS", "https://check.torproject.org/exit-addresses")],
  format: { kind: "lines" },
  reader: torReader,
  formatName: "Tor exit-addresses (ExitNode / ExitAddress lines) or the bulk exit list (one address a line)",
  // The Tor Project rebuilds the list about hourly; an answer may lag it by two cycles before it is called stale.
  cadence: every("hour"),
  // The list holds about 1,000 to 2,000 exits: a file under 100 is a broken one.
  sanity: { minRecords: 100, minRatio: 0.5, maxRatio: 2 },
  license: "public (The Tor Project, Inc.)",
  coverage: { kind: "full", note: "every exit relay seen by the Tor Project's exit scanners in the last 24 hours" },
  fullFloor: { records: 500, basis: "Tor Metrics: about 1,000 to 2,000 exit relays a day" },
  sample: "tor-exit-addresses.sample.txt",
  parse(text) {
    const lines = text.split(/\r?\n/);
    const { rows, skipped } = torReader.read(
      lines.map((line) => [line]),
      {},
    );
    return { rows: [...new Set(rows)].sort(), skipped, version: latestScan(lines) };
  },
};
