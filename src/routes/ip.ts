import { Hono, type Context } from "hono";
import { z } from "zod";
import { browserCors, publishableFields, publishableKey } from "../auth/publishable-key";
import { assertSandboxValue } from "../auth/sandbox";
import type { Product, WalkOptions } from "../engines/product";
import { ok } from "../http/envelope";
import { ApiError, validationFailed } from "../http/errors";
import { batchMeta, lookupMeta, suppressibleLookupMeta } from "../http/meta";
import { browserOk, browserSchema } from "../http/browser-answer";
import { describe } from "../http/openapi";
import { jsonBody, pathParams, queryParams } from "../http/validation";
import { parseCidr } from "../platform/ip-address";
import { ip, ipAsn, ipRange } from "../products/ip/product";
import { asnSchema, ipResultSchema, rangeSchema } from "../products/ip/schemas";
import type { AppEnv } from "../types";
import { LOOKUP_ERRORS, lookupKey, paidWalk } from "./paid-walk";

const OPTIONS: WalkOptions = { refresh: false, maxAgeSeconds: null, honorSuppressions: false, extra: {} };
const ipField = z.string().max(100);

const lookup = <In, Out>(c: Context<AppEnv>, product: Product<In, Out>, inputs: In[]) => paidWalk(c, product, inputs, OPTIONS);

/** One address, answered with the single-lookup meta (products.md: IP adds `ip_lookups_prepaid`). */
async function single(c: Context<AppEnv>, address: string) {
  const run = await lookup(c, ip, [address]);
  const { data, meta } = run.items[0]!;
  return ok(c, data, {
    credits_used: meta.credits_used,
    credits_remaining: run.creditsRemaining,
    cache_hit: meta.cache_hit,
    suppressed: meta.suppressed,
    ip_lookups_prepaid: run.prepaid ?? 0,
  });
}

/** One value of a product billed in credits (ASN, range), with its `meta`. */
async function one<In, Out>(c: Context<AppEnv>, product: Product<In, Out>, input: In) {
  const run = await lookup(c, product, [input]);
  const { data, meta } = run.items[0]!;
  return { data, meta: { credits_used: meta.credits_used, credits_remaining: run.creditsRemaining, cache_hit: meta.cache_hit } };
}

/** products.md: IP's lookups add how many prepaid placing lookups the account has left. */
const prepaid = { ip_lookups_prepaid: z.int() };
const singleMeta = suppressibleLookupMeta.extend(prepaid);

const singleDoc = (summary: string) =>
  describe({ tag: "IP", summary, description: "Five fresh lookups that place an address cost 1 credit; see docs/ip.md.", response: ipResultSchema, meta: singleMeta, errors: [...LOOKUP_ERRORS] });

const clientAddress = (c: Context<AppEnv>) => c.req.header("CF-Connecting-IP") ?? "";

const asnParam = z.object({ asn: z.string().regex(/^(AS)?\d{1,10}$/i, "An AS number: 64496 or AS64496.") });

/** The IP lookups (docs/ip.md). `GET /ip/{ip}` is `ipAddressRoute`, mounted after every other `/ip/...` route. */
export const ipRoutes = new Hono<AppEnv>()
  .post("/ip", singleDoc("Look up one IP address"), lookupKey({ scope: "ip", sandbox: true }), jsonBody(z.object({ ip: ipField })), async (c) => {
    const { ip: address } = c.req.valid("json");
    assertSandboxValue(c, ip.isSample(address));
    return single(c, address);
  })
  .get("/ip/me", singleDoc("Look up the caller's own address (CF-Connecting-IP)"), lookupKey({ scope: "ip" }), (c) => single(c, clientAddress(c)))
  .get(
    "/ip/asn/:asn",
    describe({ tag: "IP", summary: "Prefixes an AS announces; 1 credit when found", response: asnSchema, meta: lookupMeta, errors: [...LOOKUP_ERRORS, "ASN_NOT_FOUND", "ASN_INDEX_UNAVAILABLE"] }),
    lookupKey({ scope: "ip", sandbox: true }),
    pathParams(asnParam),
    async (c) => {
      const asn = Number(c.req.valid("param").asn.replace(/^AS/i, ""));
      if (asn > 4_294_967_295) throw validationFailed({ asn: ["At most 4294967295."] });
      assertSandboxValue(c, ipAsn.isSample(asn));
      const { data, meta } = await one(c, ipAsn, asn);
      if (data.status === "unavailable") throw new ApiError("ASN_INDEX_UNAVAILABLE", "The ASN index (ip-asn) is not installed.");
      if (data.status === "not_found") throw new ApiError("ASN_NOT_FOUND", `No prefix is assigned to AS${asn}.`);
      return ok(c, data.data, meta);
    },
  )
  .get(
    "/ip/range",
    describe({ tag: "IP", summary: "The dataset blocks inside a CIDR block; 1 credit when any is found", response: rangeSchema, meta: lookupMeta, errors: [...LOOKUP_ERRORS] }),
    lookupKey({ scope: "ip", sandbox: true }),
    queryParams(z.object({ cidr: z.string().max(100).refine((v) => parseCidr(v) !== null, "A CIDR block such as 8.8.8.0/24 or 2001:db8::/32.") })),
    async (c) => {
      const { cidr } = c.req.valid("query");
      assertSandboxValue(c, ipRange.isSample(cidr));
      const { data, meta } = await one(c, ipRange, cidr);
      return ok(c, data, meta);
    },
  )
  .post(
    "/ip/batch",
    describe({
      tag: "IP",
      summary: "Look up 1 to 1,000 addresses in order; counts as one request",
      response: z.object({ results: z.array(z.object({ index: z.int(), input: z.string(), data: ipResultSchema, meta: z.object({ credits_used: z.int(), cache_hit: z.boolean(), suppressed: z.boolean() }) })) }),
      meta: batchMeta.extend(prepaid),
      errors: [...LOOKUP_ERRORS],
    }),
    lookupKey({ scope: "ip", sandbox: true }),
    jsonBody(z.object({ ips: z.array(ipField).min(1).max(1_000) })),
    async (c) => {
      const { ips } = c.req.valid("json");
      assertSandboxValue(c, ips.every((value) => ip.isSample(value)));
      const run = await lookup(c, ip, ips);
      const results = run.items.map(({ index, input, data, meta }) => ({ index, input, data, meta: { credits_used: meta.credits_used, cache_hit: meta.cache_hit, suppressed: meta.suppressed } }));
      return ok(
        c,
        { results },
        {
          requested: run.requested,
          processed: run.processed,
          credits_used: run.creditsUsed,
          credits_remaining: run.creditsRemaining,
          stopped_reason: run.stoppedReason,
          ip_lookups_prepaid: run.prepaid ?? 0,
        },
      );
    },
  )
  .use("/ip/public", browserCors())
  .post(
    "/ip/public",
    describe({
      tag: "IP",
      summary: "Browser lookup with a publishable key; answers without meta",
      description: "Authenticated by `key` in the body and the `Origin` header. Without `ip`, the visitor's own address is looked up.",
      response: browserSchema(ipResultSchema),
      meta: null,
      errors: [...LOOKUP_ERRORS],
    }),
    jsonBody(z.object({ ...publishableFields, ip: ipField.nullish() })),
    publishableKey(),
    async (c) => {
      const run = await lookup(c, ip, [c.req.valid("json").ip ?? clientAddress(c)]);
      return browserOk(c, run.items[0]!.data);
    },
  );

/** `GET /ip/{ip}`: registered last, so `/ip/me`, `/ip/lists`, `/ip/bulk` and the other paths are never read as addresses. */
export const ipAddressRoute = new Hono<AppEnv>().get(
  "/ip/:ip",
  singleDoc("Look up one IP address given in the path"),
  lookupKey({ scope: "ip", sandbox: true }),
  pathParams(z.object({ ip: ipField })),
  async (c) => {
    const { ip: address } = c.req.valid("param");
    assertSandboxValue(c, ip.isSample(address));
    return single(c, address);
  },
);
