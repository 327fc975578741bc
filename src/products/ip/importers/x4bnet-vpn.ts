import { cidrRows, every, LIST_SANITY, listLines, source, WHOLE, type IpImporter } from "./importer";

/**
 * X4BNet `lists_vpn` (`output/vpn/ipv4.txt`): one CIDR block a line, the ranges of commercial VPN providers gathered
 * from their ASNs and server lists. Feeds `vpn`: a listed address is a VPN exit. The list is maintained but not
 * exhaustive, so even the real file is `partial`: an address it does not list is `vpn` null, not false.
 */
export const x4bnetVpnImporter: IpImporter = {
  dataset: "vpn-x4bnet",
  publisher: "X4BNet lists_vpn",
  sources: [
    source("REFRESH_URL_VPN_X4BNET", "https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv4.txt"),
  ],
  format: WHOLE,
  formatName: "one CIDR block a line",
  cadence: every("day"),
  sanity: LIST_SANITY,
  license: "X4BNet lists_vpn (its repository states the terms)",
  coverage: { kind: "partial", note: "commercial VPN providers' ranges (IPv4); not every VPN" },
  fullFloor: null,
  sample: "x4bnet-vpn-ipv4.sample.txt",
  parse(text) {
    return { ...cidrRows(listLines(text), null), version: null };
  },
};
