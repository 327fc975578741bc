import { z } from "zod";
import { lookupRoute, type LookupDeclarations } from "../../engines/lookup-declarations";
import { parseCidr } from "../../platform/ip-address";
import { ipAsn, ipRange } from "./product";
import type { AsnAnswer, IpResult, RangeResult } from "./result";
import { asnSchema, ipResultSchema, rangeSchema } from "./result";

const ipField = z.string().max(100);
export const singleBody = z.object({ ip: ipField });
export const batchBody = z.object({ ips: z.array(ipField).min(1).max(1_000) });
export const browserBody = z.object({ ip: ipField.nullish() });
const ipParams = z.object({ ip: ipField });
const asnParams = z.object({ asn: z.string().regex(/^(AS)?\d{1,10}$/i, "An AS number: 64496 or AS64496.") });
const rangeQuery = z.object({
  cidr: z
    .string()
    .max(100)
    .refine((v) => parseCidr(v) !== null, "A CIDR block such as 8.8.8.0/24 or 2001:db8::/32."),
});

const ANSWER =
  "Country, ASN and network of an IPv4 or IPv6 address from the installed range tables, with `tor`, `vpn`, `proxy` " +
  "and hosting signals " +
  "and a documented `risk_score`; a field no installed dataset covers is null, never a guess (docs/ip.md).";
const COST =
  "Five fresh lookups that place an address cost 1 credit (`meta.ip_lookups_prepaid`: how many of the block remain); " +
  "unplaced, reserved, invalid, test and 7-day repeat lookups are free.";

const single = (
  path: string,
  summary: string,
  extra: Partial<
    Parameters<typeof lookupRoute<string, IpResult, z.output<typeof singleBody>, z.output<typeof ipParams>>>[0]
  > & { operationId: string },
) =>
  lookupRoute<string, IpResult, z.output<typeof singleBody>, z.output<typeof ipParams>>({
    kind: "single",
    method: "post",
    path,
    summary,
    description: `${ANSWER} ${COST}`,
    sandbox: true,
    request: {},
    inputs: () => [],
    response: ipResultSchema,
    meta: ["suppressed"],
    prepaid: "ip_lookups_prepaid",
    ...extra,
  });

/** IP's lookups (docs/ip.md): single (body, path, the caller's own), batch, browser, ASN prefixes and range blocks. */
export const ipDeclarations: LookupDeclarations = {
  tag: "IP",
  routes: [
    single("/ip", "Look up one IP address", {
      operationId: "lookupIp",
      request: { json: singleBody },
      inputs: ({ json }) => [json.ip],
      tool: {
        title: "Look up an IP address",
        description:
          "Country and location, ASN and network, hosting provider, Tor/VPN/proxy lists (null when no " +
          "installed list covers them), the account's allow/deny lists, risk_score. Five fresh lookups that place an " +
          "address cost 1 credit (meta.ip_lookups_prepaid counts what is left); unplaced addresses are free.",
        openWorld: false,
      },
    }),
    single("/ip/me", "Look up the caller's own address (CF-Connecting-IP)", {
      operationId: "lookupMyIp",
      method: "get",
      sandbox: false,
      inputs: ({ clientAddress }) => [clientAddress],
    }),
    lookupRoute<number, AsnAnswer, unknown, z.output<typeof asnParams>>({
      kind: "read",
      method: "get",
      path: "/ip/asn/:asn",
      operationId: "lookupIpAsn",
      product: ipAsn,
      summary: "Prefixes an AS announces; 1 credit when found",
      description:
        "The name, country and announced IPv4 and IPv6 prefixes of an autonomous system, from the installed ASN " +
        "index. 1 credit when the AS has a prefix (a 7-day repeat is free); 404 ASN_NOT_FOUND or 501 " +
        "ASN_INDEX_UNAVAILABLE, free, otherwise.",
      sandbox: true,
      request: { param: asnParams },
      inputs: ({ param }) => {
        const asn = Number(param.asn.replace(/^AS/i, ""));
        return asn > 4_294_967_295 ? { invalid: { asn: ["At most 4294967295."] } } : [asn];
      },
      answer: (answer) =>
        answer.status === "unavailable"
          ? { error: { code: "ASN_INDEX_UNAVAILABLE", message: "The ASN index (ip-asn) is not installed." } }
          : answer.status === "not_found"
            ? { error: { code: "ASN_NOT_FOUND", message: `No prefix is assigned to AS${answer.data.asn}.` } }
            : { data: answer.data },
      response: asnSchema,
      errors: ["ASN_NOT_FOUND", "ASN_INDEX_UNAVAILABLE"],
    }),
    lookupRoute<string, RangeResult, unknown, unknown, z.output<typeof rangeQuery>>({
      kind: "read",
      method: "get",
      path: "/ip/range",
      operationId: "lookupIpRange",
      product: ipRange,
      summary: "The dataset blocks inside a CIDR block; 1 credit when any is found",
      description:
        "The rows of the installed range tables inside a CIDR block (country, ASN, network), truncated past a limit. " +
        "1 credit when any block is found (a 7-day repeat is free); free otherwise.",
      sandbox: true,
      request: { query: rangeQuery },
      inputs: ({ query }) => [query.cidr],
      response: rangeSchema,
    }),
    lookupRoute<string, IpResult, z.output<typeof batchBody>>({
      kind: "batch",
      method: "post",
      path: "/ip/batch",
      operationId: "lookupIps",
      tool: {
        title: "Look up up to 1,000 IP addresses",
        description: "As lookup_ip for 1 to 1,000 addresses, in order; five placing lookups per credit.",
        openWorld: false,
      },
      summary: "Look up 1 to 1,000 addresses in order; counts as one request",
      description:
        `Each address is answered as \`POST /ip\` answers it, in input order. Walks in order and stops ` +
        `where credits or the key's daily cap run out (\`stopped_reason\`). ${COST}`,
      sandbox: true,
      request: { json: batchBody },
      inputs: ({ json }) => json.ips,
      options: () => ({ honorSuppressions: false }),
      response: ipResultSchema,
      item: { input: z.string(), meta: ["suppressed"] },
      prepaid: "ip_lookups_prepaid",
    }),
    lookupRoute<string, IpResult, z.output<typeof browserBody>>({
      kind: "browser",
      method: "post",
      path: "/ip/public",
      operationId: "lookupIpPublic",
      summary: "Browser lookup with a publishable key; answers without meta",
      description:
        `Authenticated by \`key\` in the body and the \`Origin\` header. Without \`ip\`, the visitor's ` +
        `own address is looked up. Billed to the key's account like \`POST /ip\`. ${ANSWER}`,
      request: { json: browserBody },
      inputs: ({ json, clientAddress }) => [json.ip ?? clientAddress],
      response: ipResultSchema,
    }),
    single("/ip/:ip", "Look up one IP address given in the path", {
      operationId: "lookupIpInPath",
      method: "get",
      request: { param: ipParams },
      inputs: ({ param }) => [param.ip],
      // Mounted after every other route, so `/ip/me`, `/ip/lists`, `/ip/bulk` and the others are never read as
      // addresses.
      last: true,
    }),
  ],
};
