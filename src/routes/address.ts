import { Hono, type Context } from "hono";
import { z } from "zod";
import { browserCors, publishableFields, publishableKey } from "../auth/publishable-key";
import { assertSandboxValue } from "../auth/sandbox";
import type { Product } from "../engines/product";
import { ok } from "../http/envelope";
import { ApiError, validationFailed, type FieldErrors } from "../http/errors";
import { batchMeta, lookupMeta, suppressibleLookupMeta } from "../http/meta";
import { browserOk, browserSchema } from "../http/browser-answer";
import { describe } from "../http/openapi";
import { jsonBody, pathParams, queryParams } from "../http/validation";
import { postcodeListing, streetListing, type Place } from "../products/address/listings";
import { address } from "../products/address/product";
import type { AddressInput } from "../products/address/result";
import { addressResultSchema, countrySchema, deliveryPointOption, listItem, NO_COUNTRY, postcodeListingSchema, streetListingSchema, withCountry, type ListItem } from "../products/address/schemas";
import { isTestAddress } from "../products/address/test-addresses";
import { isCountry } from "../products/address/postcodes";
import type { AppEnv } from "../types";
import { LOOKUP_ERRORS, lookupKey, paidWalk } from "./paid-walk";

const OPTIONS = { refresh: false, maxAgeSeconds: null, honorSuppressions: false, extra: {} };

const singleBody = z.object({ address: listItem, country: countrySchema.optional(), delivery_point: deliveryPointOption });
const batchBody = z.object({ addresses: z.array(listItem).min(1).max(100), country: countrySchema.optional(), delivery_point: deliveryPointOption });
const publicBody = z.object({ ...publishableFields, address: listItem, country: countrySchema.optional() });
/**
 * A listing's country must be a country (or `ZZ`, the test addresses'): a code that is none is a malformed request,
 * 422, not 501 "no dataset covers it" (docs/address.md). In a lookup body it is part of the value, answered
 * `unsupported_country`.
 */
const listedCountry = countrySchema.refine((code) => code === "ZZ" || isCountry(code), "Not an ISO 3166-1 alpha-2 country code.");
const placeQuery = z.object({ country: listedCountry, postcode: z.string().min(1).max(20) });

/** Every item with its country (its own, else the request's); a 422 names each item that has none. */
function resolve(items: ListItem[], country: string | undefined, field: (i: number) => string): AddressInput[] {
  const errors: FieldErrors = {};
  const inputs = items.map((item, i) => withCountry(item, country) ?? ((errors[field(i)] = [NO_COUNTRY]), null));
  if (Object.keys(errors).length) throw validationFailed(errors);
  return inputs as AddressInput[];
}

const paid = <In, Out>(c: Context<AppEnv>, product: Product<In, Out>, inputs: In[], honorSuppressions = false, deliveryPoint = false) =>
  paidWalk(c, product, inputs, { ...OPTIONS, honorSuppressions, extra: { delivery_point: deliveryPoint } });

async function single(c: Context<AppEnv>, body: { address: ListItem; country?: string | undefined; delivery_point?: boolean }) {
  const [input] = resolve([body.address], body.country, () => "address.country");
  return paid(c, address, [input!], false, body.delivery_point ?? false);
}

/** A listing through the walk; an answer no installed dataset could give is the route's error, charged nothing. */
async function listed<T>(c: Context<AppEnv>, product: Product<Place, { data: T; covered: boolean }>, place: Place, missing: () => ApiError) {
  const run = await paid(c, product, [place]);
  const { data, meta } = run.items[0]!;
  if (!data.covered) throw missing();
  return ok(c, data.data, { credits_used: meta.credits_used, credits_remaining: run.creditsRemaining, cache_hit: meta.cache_hit });
}

const itemMeta = z.object({ credits_used: z.int(), cache_hit: z.boolean(), suppressed: z.boolean() });

/** Postal addresses: lookups, batch, browser, postcode and street listings (docs/address.md). */
export const addressRoutes = new Hono<AppEnv>()
  .post(
    "/address",
    describe({ tag: "Address", summary: "Verify one address; 1 credit only when verified and not a 7-day repeat", response: addressResultSchema, meta: suppressibleLookupMeta, errors: [...LOOKUP_ERRORS] }),
    lookupKey({ scope: "address", sandbox: true }),
    jsonBody(singleBody),
    async (c) => {
      const body = c.req.valid("json");
      assertSandboxValue(c, isTestAddress(resolve([body.address], body.country, () => "address.country")[0]!));
      const run = await single(c, body);
      const { data, meta } = run.items[0]!;
      return ok(c, data, { credits_used: meta.credits_used, credits_remaining: run.creditsRemaining, cache_hit: meta.cache_hit, suppressed: meta.suppressed });
    },
  )
  .post(
    "/address/batch",
    describe({
      tag: "Address",
      summary: "Verify 1 to 100 addresses in order; counts as one request",
      description: "`country` applies to every address that names none. Walks in order and stops where credits or the key's daily cap run out; suppressed addresses answer free.",
      response: z.object({ results: z.array(z.object({ index: z.int(), input: z.unknown(), data: addressResultSchema, meta: itemMeta })) }),
      meta: batchMeta,
      errors: [...LOOKUP_ERRORS],
    }),
    lookupKey({ scope: "address", sandbox: true }),
    jsonBody(batchBody),
    async (c) => {
      const body = c.req.valid("json");
      const inputs = resolve(body.addresses, body.country, (i) => `addresses.${i}`);
      assertSandboxValue(c, inputs.every(isTestAddress));
      const run = await paid(c, address, inputs, true, body.delivery_point);
      const results = run.items.map(({ index, input, data, meta }) => ({ index, input, data, meta: { credits_used: meta.credits_used, cache_hit: meta.cache_hit, suppressed: meta.suppressed } }));
      return ok(c, { results }, { requested: run.requested, processed: run.processed, credits_used: run.creditsUsed, credits_remaining: run.creditsRemaining, stopped_reason: run.stoppedReason });
    },
  )
  .use("/address/public", browserCors())
  .post(
    "/address/public",
    describe({ tag: "Address", summary: "Browser lookup with a publishable key; answers without meta", description: "Authenticated by `key` in the body and the `Origin` header; no bearer key.", response: browserSchema(addressResultSchema), meta: null, errors: [...LOOKUP_ERRORS] }),
    jsonBody(publicBody),
    publishableKey(),
    async (c) => {
      const body = c.req.valid("json");
      const run = await single(c, { address: body.address, country: body.country });
      return browserOk(c, run.items[0]!.data);
    },
  )
  .get(
    "/address/postcode/:postcode",
    describe({ tag: "Address", summary: "The localities of a postcode; 1 credit when found and fresh", response: postcodeListingSchema, meta: lookupMeta, errors: ["ADDRESS_LIST_UNAVAILABLE", ...LOOKUP_ERRORS] }),
    lookupKey({ scope: "address" }),
    pathParams(z.object({ postcode: z.string().min(1).max(20) })),
    queryParams(placeQuery.pick({ country: true })),
    async (c) =>
      listed(c, postcodeListing, { postcode: c.req.valid("param").postcode, country: c.req.valid("query").country }, () =>
        new ApiError("ADDRESS_LIST_UNAVAILABLE", "No installed dataset covers this postcode (or this country's postcodes)."),
      ),
  )
  .get(
    "/address/streets",
    describe({ tag: "Address", summary: "Street names of a postcode from an installed street register; 1 credit when found and fresh", response: streetListingSchema, meta: lookupMeta, errors: ["ADDRESS_STREETS_NOT_FOUND", ...LOOKUP_ERRORS] }),
    lookupKey({ scope: "address" }),
    queryParams(placeQuery),
    async (c) => listed(c, streetListing, c.req.valid("query"), () => new ApiError("ADDRESS_STREETS_NOT_FOUND", "No installed street register lists streets for this postcode.")),
  );
