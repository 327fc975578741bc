// From MX host names to the IP addresses the sidecar will dial. Addresses are resolved once and the socket is opened to
// the resolved address itself, so a DNS answer cannot change between the private-range check and the connection.
import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";
import { refusalReason } from "./address-guard.mjs";

/** At most this many addresses are tried for one probe, whatever the MX set publishes. */
export const MAX_TARGETS = 10;

/** @typedef {{ resolve4(host: string): Promise<string[]>, resolve6(host: string): Promise<string[]> }} HostResolver */

/** The default resolver: A and AAAA queries straight to DNS, with a bounded retry budget. */
export const createDnsResolver = () => new Resolver({ timeout: 3000, tries: 2 });

/**
 * MX hosts in the order they must be tried: ascending preference, ties in the order given.
 * @template {{ preference: number }} T
 * @param {T[]} mxHosts
 * @returns {T[]}
 */
export const orderMxHosts = (mxHosts) => [...mxHosts].sort((a, b) => a.preference - b.preference);

/**
 * Resolves every MX host (A, then AAAA; an IP literal stands for itself) and sorts the addresses into those that may be
 * dialled and those refused as private or reserved.
 * @param {{ host: string, preference: number }[]} mxHosts already in trial order
 * @param {{ resolver: HostResolver, allowLoopback: boolean, deadline: number }} options
 * @returns {Promise<{ targets: { host: string, ip: string }[], refused: number }>}
 */
export async function resolveTargets(mxHosts, { resolver, allowLoopback, deadline }) {
  const addressLists = await Promise.all(mxHosts.map(({ host }) => addressesOf(host, resolver, deadline)));
  const targets = [];
  const seen = new Set();
  let refused = 0;
  mxHosts.forEach(({ host }, index) => {
    for (const ip of addressLists[index]) {
      if (seen.has(ip)) continue;
      seen.add(ip);
      if (refusalReason(ip, { allowLoopback })) refused += 1;
      else targets.push({ host: host.replace(/\.$/, ""), ip });
    }
  });
  return { targets: targets.slice(0, MAX_TARGETS), refused };
}

async function addressesOf(host, resolver, deadline) {
  const name = host.replace(/\.$/, "");
  if (isIP(name)) return [name];
  const lookups = Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(() => resolve([]), Math.max(0, deadline - Date.now()));
  });
  const settled = await Promise.race([lookups, expired]).finally(() => clearTimeout(timer));
  return settled.flatMap((lookup) => (lookup.status === "fulfilled" ? lookup.value : []));
}
