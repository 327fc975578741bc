import { fold } from "./names";
import { readInput } from "./parse";
import { isOneLine, type AddressInput, type AddressResult, type Correction } from "./result";
import { risk } from "./score";
import { whole } from "../../engines/sources";

/**
 * Test addresses (docs/address.md): country `ZZ` (ISO 3166's user-assigned code, never a country) and a line 1 that
 * names the answer. They answer the same canonical result every time, free, with no dataset read, and never enter
 * history or suppressions; they are also the sandbox key's samples.
 */
export const TEST_SOURCE = whole("test-addresses", "2026-11-23");

const ADDRESS = {
  line1: "1 Test Street",
  line2: null,
  locality: "Testville",
  region: null,
  postcode: "ZZ1 1ZZ",
  country: "ZZ",
};

type Kind = "verified" | "format-only" | "invalid-postcode" | "unknown-postcode" | "locality-mismatch" | "po-box";

export const TEST_LINES: readonly Kind[] = [
  "verified",
  "format-only",
  "invalid-postcode",
  "unknown-postcode",
  "locality-mismatch",
  "po-box",
];

const kindOf = (input: AddressInput): Kind | null => {
  const read = readInput(input);
  if (read.country !== "ZZ" || !read.line1) return null;
  const line = fold(read.line1).toLowerCase().replace(/ /g, "-");
  return TEST_LINES.find((kind) => kind === line) ?? null;
};

/** Each test address as a lookup takes it: the kind as its first line, country `ZZ`. */
export const TEST_ADDRESS_INPUTS = TEST_LINES.map((kind) => ({ line1: kind, country: "ZZ" }));

export const isTestAddress = (input: AddressInput) => kindOf(input) !== null;

/** The canonical answer of a test address, or null when the input is not one. */
export function testAnswer(input: AddressInput): AddressResult | null {
  const kind = kindOf(input);
  if (!kind) return null;
  const found = kind !== "format-only" && kind !== "invalid-postcode" && kind !== "unknown-postcode";
  const reason =
    (
      {
        "invalid-postcode": "invalid_postcode_format",
        "unknown-postcode": "unknown_postcode",
        "locality-mismatch": "locality_mismatch",
      } as const
    )[kind as string] ?? null;
  const corrections: Correction[] =
    kind === "locality-mismatch" ? [{ field: "locality", from: "Elsewhere", to: "Testville" }] : [];
  const line1 = kind === "po-box" ? "PO Box 1" : ADDRESS.line1;
  const address = { ...ADDRESS, line1 };
  const verification = reason ? "invalid" : found ? "verified" : "format_only";
  const precision = !found ? "country" : kind === "locality-mismatch" ? "postcode" : "locality";
  return {
    input: isOneLine(input) ? input.address : input,
    country: "ZZ",
    valid: verification !== "invalid",
    verification,
    precision,
    address,
    formatted: `${line1}\nTestville\nZZ1 1ZZ`,
    postcode_format_valid: kind !== "invalid-postcode",
    postcode_found: kind === "format-only" || kind === "invalid-postcode" ? null : kind !== "unknown-postcode",
    locality_matches_postcode: found ? kind !== "locality-mismatch" : null,
    region_matches_postcode: null,
    po_box: kind === "po-box",
    corrections,
    missing_components: [],
    geo: found ? { latitude: 0, longitude: 0, precision: "postcode" } : null,
    deliverable: null,
    delivery_point: null,
    reason: reason ?? (verification === "format_only" ? "not_covered" : null),
    ...risk({
      failed: reason ? [reason] : [],
      formatOnly: verification === "format_only",
      poBox: kind === "po-box",
      verifiedAt: verification === "verified" ? precision : null,
    }),
    sources: [TEST_SOURCE],
    policy: null,
  };
}
