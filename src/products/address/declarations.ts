import { z } from "zod";
import { lookupRoute, type Invalid, type LookupDeclarations } from "../../engines/lookup-declarations";
import { postcodeListing, streetListing, type Listed, type Place } from "./listings";
import { isCountry } from "./postcodes";
import {
  addressResultSchema,
  postcodeListingSchema,
  streetListingSchema,
  type AddressInput,
  type AddressResult,
  type PostcodeListing,
  type StreetListing,
} from "./result";
import { countrySchema, deliveryPointOption, listItem, NO_COUNTRY, withCountry, type ListItem } from "./schemas";

export const singleBody = z.object({ address: listItem, country: countrySchema.optional() });
export const batchBody = z.object({
  addresses: z.array(listItem).min(1).max(100),
  country: countrySchema.optional(),
  delivery_point: deliveryPointOption,
});
/** Secret-key lookups may ask the delivery-point partner; the browser endpoint never does (docs/partners.md). */
const singleRequest = singleBody.extend({ delivery_point: deliveryPointOption });
/**
 * A listing's country must be a country (or `ZZ`, the test addresses'): a code that is none is a malformed request,
 * 422, not 501 "no dataset covers it" (docs/address.md). In a lookup body it is part of the value, answered
 * `unsupported_country`.
 */
const listedCountry = countrySchema.refine(
  (code) => code === "ZZ" || isCountry(code),
  "Not an ISO 3166-1 alpha-2 country code.",
);
const placeQuery = z.object({ country: listedCountry, postcode: z.string().min(1).max(20) });
const postcodeParams = z.object({ postcode: z.string().min(1).max(20) });
const countryQuery = placeQuery.pick({ country: true });

/** Every item with its country (its own, else the request's); a 422 names each item that has none. */
function resolve(
  items: ListItem[],
  country: string | undefined,
  field: (i: number) => string,
): AddressInput[] | Invalid {
  const invalid: Record<string, string[]> = {};
  const inputs = items.map((item, i) => withCountry(item, country) ?? ((invalid[field(i)] = [NO_COUNTRY]), null));
  return Object.keys(invalid).length ? { invalid } : (inputs as AddressInput[]);
}

/** A listing no installed dataset could give is the route's error, charged nothing. */
const listed =
  <T>(code: string, message: string) =>
  (answer: Listed<T>) =>
    answer.covered ? { data: answer.data } : { error: { code, message } };

const ANSWER =
  "`verdict` `verified` (the postcode, locality and street agree with an installed reference dataset), `format_only` " +
  "(well formed, but no installed dataset " +
  "covers it: `reason: not_covered`), `invalid` (`reason` names what disagrees) or `unsupported_country`; the " +
  "address comes back formatted, with `did_you_mean` where one fix makes it agree (docs/address.md).";
const DELIVERY =
  "`delivery_point: true` asks the configured delivery-point partner: `deliverable` and a `delivery_point` block; 1 " +
  "more credit when the partner answers, " +
  "and the whole answer is free with `reason: partner_unavailable` when none does (docs/partners.md).";
const COST =
  "1 credit for a fresh `verified` answer; `format_only`, `invalid`, `unsupported_country`, repeats of the same " +
  "address within 7 days and test addresses are free.";

/** Address's lookups (docs/address.md): single, batch, browser, and postcode and street listings. */
export const addressDeclarations: LookupDeclarations = {
  tag: "Address",
  routes: [
    lookupRoute<AddressInput, AddressResult, z.output<typeof singleRequest>>({
      kind: "single",
      method: "post",
      path: "/address",
      operationId: "verifyAddress",
      tool: {
        title: "Verify a postal address",
        description:
          "Reads and checks one postal address (one line or components, with an ISO country) against " +
          "installed reference datasets. verification: `verified` (found as given or corrected), `partial`, " +
          "`unverified`, or `format_only` (no dataset covers the country, reason `not_covered`). 1 credit only " +
          "when verified.",
        // `network` / `delivery_point` send the value to a partner.
        openWorld: true,
        testValues: true,
      },
      summary: "Verify one address; 1 credit only when verified and not a 7-day repeat",
      description:
        `An address on one line or in fields, with its \`country\` (inside the address or beside it). ` +
        `${ANSWER} ${COST} ${DELIVERY} A single lookup never consults the suppression list.`,
      sandbox: true,
      request: { json: singleRequest },
      inputs: ({ json }) => resolve([json.address], json.country, () => "address.country"),
      options: ({ json }) => ({ extra: { delivery_point: json.delivery_point } }),
      response: addressResultSchema,
      meta: ["suppressed"],
    }),
    lookupRoute<AddressInput, AddressResult, z.output<typeof batchBody>>({
      kind: "batch",
      method: "post",
      path: "/address/batch",
      operationId: "verifyAddresses",
      tool: {
        title: "Verify up to 100 postal addresses",
        description:
          "As verify_address for 1 to 100 addresses; `country` applies to one-line items without their own. " +
          "1 credit per verified answer.",
        // `network` / `delivery_point` send the value to a partner.
        openWorld: true,
      },
      summary: "Verify 1 to 100 addresses in order; counts as one request",
      description:
        `\`country\` applies to every address that names none. Walks in order and stops where credits or ` +
        `the key's daily cap run out (\`stopped_reason\`); suppressed addresses answer free. ${COST} ${DELIVERY} ` +
        `Each distinct address is checked once.`,
      sandbox: true,
      request: { json: batchBody },
      inputs: ({ json }) => resolve(json.addresses, json.country, (i) => `addresses.${i}`),
      options: ({ json }) => ({ extra: { delivery_point: json.delivery_point } }),
      response: addressResultSchema,
      item: { input: z.unknown(), meta: ["suppressed"] },
    }),
    lookupRoute<AddressInput, AddressResult, z.output<typeof singleBody>>({
      kind: "browser",
      method: "post",
      path: "/address/public",
      operationId: "verifyAddressPublic",
      summary: "Browser lookup with a publishable key; answers without meta",
      description:
        `Authenticated by \`key\` in the body and the \`Origin\` header; no bearer key. Billed to the ` +
        `key's account like \`POST /address\`. ${ANSWER} Never asks a delivery-point partner: a \`delivery_point\` ` +
        `field is ignored.`,
      request: { json: singleBody },
      inputs: ({ json }) => resolve([json.address], json.country, () => "address.country"),
      response: addressResultSchema,
    }),
    lookupRoute<
      Place,
      Listed<PostcodeListing>,
      unknown,
      z.output<typeof postcodeParams>,
      z.output<typeof countryQuery>
    >({
      kind: "read",
      method: "get",
      path: "/address/postcode/:postcode",
      operationId: "getAddressPostcode",
      product: postcodeListing,
      summary: "The localities of a postcode; 1 credit when found and fresh",
      description:
        "The localities (and regions) an installed dataset lists for a postcode of `country`. 1 credit when found " +
        "and not a 7-day repeat; `found: false` is free; 501 ADDRESS_LIST_UNAVAILABLE, free, when no installed " +
        "dataset covers the country's postcodes.",
      request: { param: postcodeParams, query: countryQuery },
      inputs: ({ param, query }) => [{ postcode: param.postcode, country: query.country }],
      answer: listed(
        "ADDRESS_LIST_UNAVAILABLE",
        "No installed dataset covers this postcode (or this country's postcodes).",
      ),
      response: postcodeListingSchema,
      errors: ["ADDRESS_LIST_UNAVAILABLE"],
    }),
    lookupRoute<Place, Listed<StreetListing>, unknown, unknown, z.output<typeof placeQuery>>({
      kind: "read",
      method: "get",
      path: "/address/streets",
      operationId: "listAddressStreets",
      product: streetListing,
      summary: "Street names of a postcode from an installed street register; 1 credit when found and fresh",
      description:
        "The street names an installed street register lists for a postcode, with their locality, truncated past a " +
        "limit. 1 credit when streets are found and not a 7-day repeat; 404 ADDRESS_STREETS_NOT_FOUND, free, when " +
        "none is.",
      request: { query: placeQuery },
      inputs: ({ query }) => [query],
      answer: listed("ADDRESS_STREETS_NOT_FOUND", "No installed street register lists streets for this postcode."),
      response: streetListingSchema,
      errors: ["ADDRESS_STREETS_NOT_FOUND"],
    }),
  ],
};
