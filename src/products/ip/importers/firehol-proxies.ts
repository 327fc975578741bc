import { cidrRows, every, LIST_SANITY, listLines, source, WHOLE, type IpImporter } from "./importer";

const MONTHS: Record<string, string> = {
  Jan: "01",
  Feb: "02",
  Mar: "03",
  Apr: "04",
  May: "05",
  Jun: "06",
  Jul: "07",
  Aug: "08",
  Sep: "09",
  Oct: "10",
  Nov: "11",
  Dec: "12",
};

/** `# This File Date  : Wed Nov 25 08:20:44 UTC 2026` -> 2026-11-25 (FireHOL's header states when it built the set). */
function fileDate(text: string): string | null {
  const match = /^#\s*This File Date\s*:\s*\w{3}\s+(\w{3})\s+(\d{1,2})\s+[\d:]+\s+\w+\s+(\d{4})/m.exec(text);
  const month = match ? MONTHS[match[1]!] : undefined;
  return month ? `${match![3]}-${month}-${match![2]!.padStart(2, "0")}` : null;
}

/**
 * FireHOL's `firehol_proxies.netset` (firehol/blocklist-ipsets, rebuilt by FireHOL's update-ipsets from the open-proxy
 * trackers it aggregates: a `#` header naming its sources, its category `anonymizers` and its build date, then one
 * address or CIDR block a line). Feeds `proxy`: a listed address is an open proxy. Open proxies come and go by the hour
 * and no tracker sees them all, so even the real file is `partial`: an address it does not list is `proxy` null.
 */
export const fireholProxiesImporter: IpImporter = {
  dataset: "proxy-firehol",
  publisher: "FireHOL firehol_proxies",
  sources: [
    source(
      "REFRESH_URL_PROXY_FIREHOL",
      "https://raw.githubusercontent.com/firehol/blocklist-ipsets/master/firehol_proxies.netset",
    ),
  ],
  format: WHOLE,
  formatName: "FireHOL netset: `#` header, one address or CIDR block a line",
  cadence: every("day"),
  sanity: LIST_SANITY,
  license: "FireHOL blocklist-ipsets (each source list's own terms, named in the file's header)",
  coverage: { kind: "partial", note: "open proxies seen by the trackers FireHOL aggregates; not every proxy" },
  fullFloor: null,
  sample: "firehol-proxies.sample.netset",
  parse(text) {
    return { ...cidrRows(listLines(text), null), version: fileDate(text) };
  },
};
