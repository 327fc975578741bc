import { cidrContains, parseCidr, type Cidr, type IpAddress } from "../../platform/ip-address";

/**
 * Well-known anycast networks (docs/ip.md, "Anycast"): the same addresses are announced from many places at once, so
 * a registry's country (1.1.1.1 is APNIC's, registered in Australia) says nothing of where a packet from them comes
 * from. Answers mark them `anycast: true` and place them in no country. The list is the public resolvers' documented
 * service addresses and the CDN ranges their operators publish as anycast; it is not every anycast network, so an
 * address it lacks is `anycast: null`, never false.
 */
export const ANYCAST_VERSION = "2026-11-27";

const NETWORKS: readonly (readonly [operator: string, cidrs: readonly string[]])[] = [
  // developers.cloudflare.com/1.1.1.1/ip-addresses/
  ["Cloudflare DNS", ["1.1.1.0/24", "1.0.0.0/24", "2606:4700:4700::/48"]],
  // developers.google.com/speed/public-dns/docs/using
  ["Google Public DNS", ["8.8.8.0/24", "8.8.4.0/24", "2001:4860:4860::/48"]],
  // quad9.net/service/service-addresses-and-features
  ["Quad9", ["9.9.9.0/24", "149.112.112.0/24", "2620:fe::/48"]],
  // OpenDNS (Cisco Umbrella) resolvers
  ["OpenDNS", ["208.67.222.0/24", "208.67.220.0/24", "2620:119:35::/48", "2620:119:53::/48"]],
  ["AdGuard DNS", ["94.140.14.0/24", "94.140.15.0/24"]],
  ["CleanBrowsing", ["185.228.168.0/24", "185.228.169.0/24"]],
  ["Control D", ["76.76.2.0/24", "76.76.10.0/24"]],
  // cloudflare.com/ips: every range of Cloudflare's edge is announced from all of its locations.
  [
    "Cloudflare",
    [
      "173.245.48.0/20",
      "103.21.244.0/22",
      "103.22.200.0/22",
      "103.31.4.0/22",
      "141.101.64.0/18",
      "108.162.192.0/18",
      "190.93.240.0/20",
      "188.114.96.0/20",
      "197.234.240.0/22",
      "198.41.128.0/17",
      "162.158.0.0/15",
      "104.16.0.0/13",
      "104.24.0.0/14",
      "172.64.0.0/13",
      "131.0.72.0/22",
      "2400:cb00::/32",
      "2606:4700::/32",
      "2803:f800::/32",
      "2405:b500::/32",
      "2405:8100::/32",
      "2a06:98c0::/29",
      "2c0f:f248::/32",
    ],
  ],
  // Fastly's public IP list (api.fastly.com/public-ip-list): its edge is anycast.
  ["Fastly", ["151.101.0.0/16", "199.232.0.0/16", "146.75.0.0/17"]],
];

const PARSED: readonly Cidr[] = NETWORKS.flatMap(([, cidrs]) => cidrs.map((c) => parseCidr(c)!));

/** Whether the address is in one of the listed anycast networks. */
export const isAnycast = (ip: IpAddress): boolean => PARSED.some((cidr) => cidrContains(cidr, ip));
