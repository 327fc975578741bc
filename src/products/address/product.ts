import { DELIVERY_FEEDBACK, SUPPRESSION_LIST } from "../../engines/sources";
import { z } from "zod";
import type { Product } from "../../engines/product";
import { DELIVERY_POINT_DATASETS } from "../../platform/delivery-points";
import { answer, prepare } from "./answer";
import { NO_REFERENCE } from "./reference";
import { addressKey } from "./key";
import { ADDRESS_DATASET_NAMES } from "./datasets";
import { addressFeedback } from "./feedback";
import { checkable, lookupWithDeliveryPoints, unitsOf, wantsDeliveryPoint } from "./delivery";
import { compare, label, observe } from "./monitor";
import { addressPolicy } from "./policy";
import { FORMATS_SOURCE, COUNTRIES_SOURCE } from "./postcodes";
import { isOneLine, type AddressInput, type AddressResult } from "./result";
import { addressInput, countrySchema, listItem, NO_COUNTRY, withCountry, type ListItem } from "./schemas";
import { manualSuppression } from "./suppressed";
import { isTestAddress, TEST_ADDRESS_INPUTS, testAnswer, TEST_SOURCE } from "./test-addresses";
import { addressRefreshable } from "./refresh";

/** The engines' value back from an answer: the input as sent, with its country. */
const inputOf = (result: AddressResult): AddressInput =>
  typeof result.input === "string"
    ? { address: result.input, country: result.country }
    : { ...result.input, country: result.country };

/** One line of the input, for history and list views. */
const oneLineOf = (input: AddressInput) =>
  isOneLine(input)
    ? input.address
    : [input.line1, input.line2, input.locality, input.region, input.postcode].filter(Boolean).join(", ");

/**
 * Postal addresses answered from reference data in D1 (docs/address.md): 1 credit only for `verified` (an address
 * that stands as written); format-only, invalid, suppressed, test and repeat answers are free. A repeat within 7 days
 * is read again (the datasets may have changed) and costs nothing.
 */
export const address: Product<AddressInput, AddressResult> = {
  name: "address",
  scope: "address",
  input: addressInput,
  unitsPerCredit: 1,
  // A partner call costs money: with `delivery_point` the walk holds before looking up, 2 units a value.
  cost: (options) => (wantsDeliveryPoint(options) ? "remote" : "local"),
  holdUnits: (options) => (wantsDeliveryPoint(options) ? 2 : 1),
  // List filters (`GET /address/suppressions?address=`) pass the key as listed.
  normalize: (input) => (typeof input === "string" ? input : addressKey(input)),
  // Version 2 folds street lines with the street table (docs/address.md, "Address keys"); rows keyed by version 1
  // (the place-name table) are re-keyed from the input their stored answer holds.
  keys: { version: 2, of: (result) => addressKey(inputOf(result)) },
  // Test addresses, and addresses no dataset could help (no country, a postcode of the wrong shape), need no read.
  local: async (input) => {
    const canned = testAnswer(input);
    if (canned) return { result: canned, test: true };
    const prepared = prepare(input);
    return !prepared.supported || prepared.shapeValid === false
      ? { result: answer(prepared, NO_REFERENCE), test: false }
      : null;
  },
  lookup: (ctx, inputs, options) =>
    lookupWithDeliveryPoints(ctx, inputs, options).then((results) => results.map((result) => ({ result }))),
  price: (result) => ({ units: unitsOf(result) }),
  // A partner's checked answer is kept for repeats even when free (`no_delivery_point`): a repeat asks it no more.
  repeatable: (result) => unitsOf(result) > 0 || result.delivery_point !== null,
  // A checked answer serves `delivery_point` repeats as stored; an unchecked one is checked now when a partner covers
  // it.
  repeats: (stored, _input, options, env) => {
    if (!wantsDeliveryPoint(options)) return "fresh";
    if (stored.delivery_point) return "stored";
    return checkable(env, stored) ? "renew" : "fresh";
  },
  suppressions: {
    suppresses: () => null,
    manual: (input) => ({ key: addressKey(input), result: manualSuppression(input) }),
    listField: "addresses",
    valueField: "address",
  },
  history: {
    row: (r) => ({
      value: oneLineOf(inputOf(r)),
      key: addressKey(inputOf(r)),
      verdict: r.verification,
      reason: r.reason,
    }),
    fields: { value: "address", key: "normalized_address", verdict: "verification" },
    verdicts: ["verified", "format_only", "invalid"],
  },
  bulk: {
    field: "addresses",
    options: {
      country: countrySchema.nullish(),
      deliverability: z.boolean().default(false),
      delivery_point: z.boolean().default(false),
    },
    rows: {
      schema: listItem,
      resolve: (row, options) => {
        const input = withCountry(row as ListItem, options.country as string | null | undefined);
        return input ? { input } : { error: NO_COUNTRY };
      },
    },
    jobFields: ["country", "deliverability"],
    counters: ["valid", "invalid", "low", "medium", "high"],
    columns: [
      "country",
      "validity",
      "verification",
      "precision",
      "reason",
      "line1",
      "line2",
      "locality",
      "region",
      "postcode",
      "formatted",
      "postcode_found",
      "locality_matches_postcode",
      "region_matches_postcode",
      "po_box",
      "missing_components",
      "latitude",
      "longitude",
      "deliverable",
      "risk_score",
      "risk_level",
    ],
    row: (r) => [
      r.country,
      r.valid ? "valid" : "invalid",
      r.verification,
      r.precision,
      r.reason,
      r.address.line1,
      r.address.line2,
      r.address.locality,
      r.address.region,
      r.address.postcode,
      r.formatted?.replaceAll("\n", ", ") ?? null,
      r.postcode_found,
      r.locality_matches_postcode,
      r.region_matches_postcode,
      r.po_box,
      r.missing_components.join(" "),
      r.geo?.latitude ?? null,
      r.geo?.longitude ?? null,
      r.deliverable,
      r.risk_score,
      r.risk_level,
    ],
    verdictColumn: "validity",
    // A row adds to its validity and to its risk level.
    counts: (row) => [row.validity!, row.risk_level!],
    sampleCounts: { valid: 1, invalid: 1, low: 1, medium: 0, high: 1 },
    sampleTotal: 2,
  },
  policy: addressPolicy,
  feedback: addressFeedback,
  monitor: {
    entryKey: addressKey,
    observe,
    compare,
    label,
    tally: { verified: (r) => r.verification === "verified" },
    listField: "addresses",
    maxEntries: 500,
    // `delivery_point: true` checks every address of each run with the delivery-point partner (docs/address.md,
    // "Monitors").
    options: { delivery_point: z.boolean().default(false) },
  },
  isSample: isTestAddress,
  samples: TEST_ADDRESS_INPUTS,
  refreshable: addressRefreshable,
  datasets: [
    FORMATS_SOURCE.dataset,
    COUNTRIES_SOURCE.dataset,
    ...ADDRESS_DATASET_NAMES,
    DELIVERY_FEEDBACK,
    SUPPRESSION_LIST,
    TEST_SOURCE.dataset,
    ...DELIVERY_POINT_DATASETS,
  ],
  partners: DELIVERY_POINT_DATASETS,
};
