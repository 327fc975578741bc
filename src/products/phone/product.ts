import { z } from "zod";
import type { Product } from "../../engines/product";
import { PHONE_NETWORK_DATASETS } from "../../platform/phone-network";
import { manualSuppression, phoneAnswer } from "./answer";
import { blockKey, localBlocks, lookupBlocks, type BlockQuery } from "./blocks";
import type { BlockResult } from "./result";
import { PHONE_DATASET_NAMES, planSource } from "./datasets";
import { phoneFeedback } from "./feedback";
import { lookupPhones, wantsNetwork } from "./lookup";
import { compare, flags, observe } from "./monitor";
import { cleanPhone, phoneKey, readItem, type PhoneItem } from "./numbering";
import { phonePolicy } from "./policy";
import { phoneRefreshable } from "./refresh";
import type { PhoneResult } from "./result";
import { networkOption, phoneItem } from "./schemas";
import { cannedAnswer, TEST_PHONE_NUMBERS } from "./test-numbers";

const isTestNumber = (item: PhoneItem) => TEST_PHONE_NUMBERS.includes(readItem(item).parsed ?? "");

/** The bulk counters a results row adds to: `valid` or `invalid`, its line type when counted, `disposable`. */
const COUNTED_LINE_TYPES = ["mobile", "fixed_line", "voip"];

/** What a fresh valid answer costs: 2 when a network partner answered, 0 when one was asked and none did, else 1. */
const unitsOf = (result: PhoneResult) =>
  !result.valid || result.reason === "partner_unavailable" ? 0 : result.network_checked ? 2 : 1;

/**
 * Phone numbers answered from the numbering plan (bundled) and the prefix tables in D1 (docs/phone.md): 1 credit for a
 * fresh valid number; invalid numbers, repeats within 7 days (keyed by E.164), suppressed and test numbers are free.
 * A repeat is read again (a cheap local read, so a monitor sees today's tables) and costs nothing. With `network: true`
 * a partner is asked too: the walk then holds before looking up (a partner call costs money) and a checked repeat is
 * answered as stored, never checked again within its 7 days.
 */
export const phone: Product<PhoneItem, PhoneResult> = {
  name: "phone",
  scope: "phone",
  input: phoneItem,
  unitsPerCredit: 1,
  cost: (options) => (wantsNetwork(options) ? "remote" : "local"),
  holdUnits: (options) => (wantsNetwork(options) ? 2 : 1),
  normalize: phoneKey,
  async local(item) {
    const reading = readItem(item);
    const canned = cannedAnswer(reading.parsed, reading.phone);
    if (canned) return { result: canned, test: true };
    return reading.valid ? null : { result: phoneAnswer(reading), test: false };
  },
  lookup: (ctx, inputs, options) =>
    lookupPhones(ctx, inputs, options).then((results) => results.map((result) => ({ result }))),
  price: (result) => ({ units: unitsOf(result) }),
  repeatable: (result) => unitsOf(result) > 0,
  repeats: (stored, _input, options) =>
    wantsNetwork(options) ? (stored.network_checked ? "stored" : "renew") : "fresh",
  suppressions: {
    // No answer joins the list by itself: numbers are added by hand, or by delivery feedback (`undelivered`).
    suppresses: () => null,
    manual: (item) => {
      const reading = readItem(item);
      return reading.valid ? { key: reading.e164!, result: manualSuppression(reading) } : null;
    },
    listField: "phones",
    valueField: "phone",
  },
  history: {
    row: (r) => ({ value: r.phone, key: r.e164 ?? r.phone, verdict: r.valid ? "valid" : "invalid", reason: r.reason }),
    fields: { value: "phone", key: "e164", verdict: "status" },
    verdicts: ["valid", "invalid"],
  },
  bulk: {
    field: "phones",
    options: { network: networkOption },
    counters: ["valid", "invalid", "mobile", "fixed_line", "voip", "disposable"],
    columns: [
      "phone",
      "valid",
      "e164",
      "country",
      "line_type",
      "carrier",
      "location",
      "disposable",
      "reason",
      "risk_score",
      "risk_level",
    ],
    row: (r) => [
      r.phone,
      r.valid,
      r.e164,
      r.country,
      r.line_type,
      r.carrier,
      r.location,
      r.disposable,
      r.reason,
      r.risk_score,
      r.risk_level,
    ],
    spell: (input) => ({ phone: cleanPhone(input) }),
    verdictColumn: "valid",
    counts: (row) => [
      row.valid === "true" ? "valid" : "invalid",
      ...(COUNTED_LINE_TYPES.includes(row.line_type ?? "") ? [row.line_type!] : []),
      ...(row.disposable === "true" ? ["disposable"] : []),
    ],
    sampleCounts: { valid: 2, invalid: 1, mobile: 1, fixed_line: 1, voip: 0, disposable: 1 },
    sampleTotal: 3,
  },
  monitor: {
    entryKey: phoneKey,
    observe,
    compare,
    flags,
    label: (r) => r.e164 ?? r.phone,
    tally: { valid: (r) => r.valid, disposable: (r) => r.disposable === true },
    listField: "phones",
    maxEntries: 1_000,
    // `network: true` checks every number of each run with the network partner (docs/phone.md, "Monitors").
    options: { network: networkOption },
  },
  policy: phonePolicy,
  feedback: phoneFeedback,
  isSample: isTestNumber,
  samples: TEST_PHONE_NUMBERS,
  refreshable: phoneRefreshable,
  datasets: [...PHONE_DATASET_NAMES, ...PHONE_NETWORK_DATASETS],
  partners: PHONE_NETWORK_DATASETS,
};

/**
 * `GET /phone/block/{country}/{prefix}` as a product of its own for the walk: it shares phone's repeat window (keys
 * `block:CC:prefix`), bills 1 when blocks are found, and has no list, bulk run or monitor of its own.
 */
export const phoneBlocks: Product<BlockQuery, BlockResult> = {
  name: "phone",
  scope: "phone",
  input: z.object({ country: z.string(), prefix: z.string() }),
  unitsPerCredit: 1,
  cost: "local",
  normalize: blockKey,
  local: async (q) => {
    const none = localBlocks(q);
    return none ? { result: none, test: false } : null;
  },
  lookup: (ctx, inputs) => Promise.all(inputs.map(async (q) => ({ result: await lookupBlocks(ctx.env, q) }))),
  price: (result) => ({ units: result.blocks.length ? 1 : 0 }),
  repeatable: (result) => result.blocks.length > 0,
  repeats: "fresh",
  isSample: () => false,
  datasets: [planSource.dataset, "phone-carriers", "phone-geocodes"],
};
