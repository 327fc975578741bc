import { isExhaustive } from "../../db/coverage";
import { installedSource, type Source } from "../../engines/sources";
import type { AddressDatasetName } from "./datasets";
import { formatted } from "./format";
import { isPoBox, placeKey, samePlace } from "./names";
import { REGION_REQUIRED, readInput } from "./parse";
import {
  canonicalPostcode,
  COUNTRIES_SOURCE,
  FORMATS_SOURCE,
  isCountry,
  postcodeRequired,
  postcodeShapeValid,
  referenceKey,
} from "./postcodes";
import {
  isOneLine,
  type AddressInput,
  type AddressResult,
  type Component,
  type Correction,
  type NormalizedAddress,
  type Precision,
} from "./result";
import { risk, type CheckFailure } from "./score";
import { decidedBySample, postcodeFound, type Reference } from "./reference";
import type { StoredPostcode } from "./store";

/** One input read and its postcode checked for shape: everything an answer needs before any dataset is read. */
export interface Prepared {
  input: AddressInput;
  /** The parts as written, cleaned of stray spaces and commas. */
  read: NormalizedAddress;
  supported: boolean;
  /** The postcode in the country's spelling when its shape is right (or unknown), else as written. */
  postcode: string | null;
  /** Null without a postcode or without a known format. */
  shapeValid: boolean | null;
  /** The reference tables' key of the postcode (`US|62701`), when its shape allows a lookup. */
  place: { country: string; postcode: string } | null;
}

export function prepare(input: AddressInput): Prepared {
  const read = readInput(input);
  const supported = isCountry(read.country);
  const canonical = read.postcode ? canonicalPostcode(read.country, read.postcode) : null;
  const shapeValid = supported && canonical ? postcodeShapeValid(read.country, canonical) : null;
  return {
    input,
    read,
    supported,
    postcode: canonical && shapeValid !== false ? canonical : read.postcode,
    shapeValid,
    place:
      canonical && shapeValid !== false
        ? { country: read.country, postcode: referenceKey(read.country, canonical) }
        : null,
  };
}

const distinct = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => v !== null))];

/**
 * A French commune's leading article (`Le Mans`, `La Chaise`, `Les Mathes`, `L'Isle-Adam`, the register's `MANS (LE)`).
 */
const withoutArticle = (name: string) =>
  name
    .trim()
    .replace(/^(le|la|les)\s+|^l\s*['’]\s*/i, "")
    .replace(/\s*\((le|la|les|l['’])\)$/i, "");

/** Whether a written locality names a place: in France also with or without the commune's leading article. */
function placeMatches(country: string, written: string, place: string): boolean {
  if (samePlace(written, place)) return true;
  if (country !== "FR") return false;
  const [a, b] = [withoutArticle(written), withoutArticle(place)];
  return a !== "" && b !== "" && samePlace(a, b);
}

/** Locality against the postcode's named places: whether it matches, the spelling to use, and a correction. */
function checkLocality(country: string, written: string | null, rows: StoredPostcode[]) {
  const named = rows.filter((r) => r.locality !== null);
  if (!named.length) return { matches: null, matched: [] as StoredPostcode[], to: null };
  const listed = distinct(named.filter((r) => !r.alias).map((r) => r.locality));
  if (!written) return { matches: null, matched: [], to: listed.length === 1 ? listed[0]! : null };
  const matched = named.filter((r) => placeMatches(country, written, r.locality!));
  if (!matched.length) return { matches: false, matched, to: listed.length === 1 ? listed[0]! : null };
  const own = matched.find((r) => !r.alias);
  return { matches: true, matched, to: own ? own.locality! : written };
}

/** Countries whose datasets name the divisions an address may carry, so a region they do not name is a mismatch. */
const REGION_CHECKED = new Set(["US", "FR"]);

/** Region against the postcode's divisions; the US keeps the USPS state code. */
function checkRegion(country: string, written: string | null, rows: StoredPostcode[]) {
  const divisions = rows
    .flatMap((r) => [r.region, r.regionCode, r.subregion, r.subregionCode])
    .filter((v): v is string => v !== null);
  const preferred = distinct(rows.map((r) => (country === "US" ? r.regionCode : r.region)));
  const single = preferred.length === 1 ? preferred[0]! : null;
  if (!divisions.length) return { matches: null, to: null };
  if (!written) return { matches: null, to: REGION_REQUIRED.has(country) ? single : null };
  const key = placeKey(written);
  const row = rows.find((r) =>
    [r.region, r.regionCode, r.subregion, r.subregionCode].some((v) => v !== null && placeKey(v) === key),
  );
  // UK addresses need no county (Royal Mail), so a county the datasets do not name is not held against them.
  if (!row)
    return { matches: REGION_CHECKED.has(country) ? false : null, to: REGION_CHECKED.has(country) ? single : null };
  return { matches: true, to: country === "US" && row.regionCode ? row.regionCode : written };
}

function missingComponents(a: NormalizedAddress): Component[] {
  const missing: Component[] = [];
  if (!a.line1) missing.push("line1");
  if (!a.locality) missing.push("locality");
  if (!a.region && REGION_REQUIRED.has(a.country)) missing.push("region");
  if (!a.postcode && postcodeRequired(a.country)) missing.push("postcode");
  return missing;
}

/** The failed checks, what the reference data contradicts before what is only absent: the first is the `reason`. */
function failures(checks: {
  shapeValid: boolean | null;
  missing: Component[];
  found: boolean | null;
  locality: boolean | null;
  region: boolean | null;
}): CheckFailure[] {
  const { shapeValid, missing, found, locality, region } = checks;
  const failed: CheckFailure[] = [];
  if (shapeValid === false) failed.push("invalid_postcode_format");
  if (found === false) failed.push("unknown_postcode");
  if (locality === false) failed.push("locality_mismatch");
  if (region === false) failed.push("region_mismatch");
  if (missing.length) failed.push("missing_components");
  return failed;
}

function precisionOf(
  found: boolean | null,
  locality: boolean | null,
  street: boolean | null,
  premise: boolean | null,
): Precision {
  if (!found) return "country";
  if (street) return premise ? "premise" : "street";
  return locality ? "locality" : "postcode";
}

function geoOf(rows: StoredPostcode[]) {
  const row = rows.find((r) => r.latitude !== null && r.longitude !== null);
  return row ? { latitude: row.latitude!, longitude: row.longitude!, precision: "postcode" as const } : null;
}

/** An answer for a country code that is no country: nothing is checked. */
function unsupported(p: Prepared): AddressResult {
  return {
    input: isOneLine(p.input) ? p.input.address : p.input,
    country: p.read.country,
    valid: false,
    verification: "invalid",
    precision: "none",
    address: p.read,
    formatted: null,
    postcode_format_valid: null,
    postcode_found: null,
    locality_matches_postcode: null,
    region_matches_postcode: null,
    po_box: isPoBox(p.read.line1) || isPoBox(p.read.line2),
    corrections: [],
    missing_components: [],
    geo: null,
    deliverable: null,
    delivery_point: null,
    reason: "unsupported_country",
    ...risk({ failed: ["unsupported_country"], formatOnly: false, poBox: false }),
    sources: [COUNTRIES_SOURCE],
    policy: null,
  };
}

/**
 * An installed dataset's entry: a sample or partial one that holds nothing of the address (no row of the postcode, no
 * street or premise it was asked for) decided nothing, and says so (`decided: false`, as on IP answers).
 */
function cited(ref: Reference, name: AddressDatasetName, country: string): Source {
  const installed = ref.installed.get(name)!;
  const source = installedSource(name, installed);
  // A complete file decided what it lacks too (`unknown_postcode`).
  if (isExhaustive(installed.coverage, country)) return source;
  const held =
    ref.rows.some((r) => r.dataset === name) ||
    (ref.streetFound === true && ref.streetDatasets.includes(name)) ||
    (ref.premiseFound === true && ref.premiseDatasets.includes(name));
  return held ? source : { ...source, decided: false };
}

/** The answer for one address from what the reference data says about it (docs/address.md, "How an answer is made"). */
export function answer(p: Prepared, ref: Reference): AddressResult {
  if (!p.supported) return unsupported(p);
  const { read } = p;
  const looked = ref.covering.length > 0 && p.place !== null;
  const found = looked ? postcodeFound(ref, read.country) : null;
  const locality = found
    ? checkLocality(read.country, read.locality, ref.rows)
    : { matches: null, matched: [], to: null };
  const region = found
    ? checkRegion(read.country, read.region, locality.matched.length ? locality.matched : ref.rows)
    : { matches: null, to: null };
  const corrections: Correction[] = [];
  const correct = (field: Component, from: string | null, to: string | null) => {
    if (to !== null && to !== from) corrections.push({ field, from, to });
    return to ?? from;
  };
  const address: NormalizedAddress = {
    ...read,
    postcode: correct("postcode", read.postcode, p.postcode),
    locality: correct("locality", read.locality, locality.to),
    region: correct("region", read.region, region.to),
  };
  const missing = missingComponents(read);
  const failed = failures({
    shapeValid: p.shapeValid,
    missing,
    found,
    locality: locality.matches,
    region: region.matches,
  });
  const verification = failed.length ? "invalid" : found ? "verified" : "format_only";
  const poBox = isPoBox(read.line1) || isPoBox(read.line2);
  const precision = precisionOf(found, locality.matches, ref.streetFound, ref.premiseFound);
  const consulted = [
    ...(p.shapeValid !== null ? [FORMATS_SOURCE] : []),
    COUNTRIES_SOURCE,
    ...(looked ? ref.covering : []),
    ...(ref.streetFound !== null ? ref.streetDatasets : []),
    ...(ref.premiseFound !== null ? ref.premiseDatasets : []),
  ];
  return {
    input: isOneLine(p.input) ? p.input.address : p.input,
    country: read.country,
    valid: verification !== "invalid",
    verification,
    precision,
    address,
    formatted: formatted(address),
    postcode_format_valid: p.shapeValid,
    postcode_found: found,
    locality_matches_postcode: locality.matches,
    region_matches_postcode: region.matches,
    po_box: poBox,
    corrections,
    missing_components: missing,
    geo: found ? geoOf([...locality.matched, ...ref.rows]) : null,
    deliverable: null,
    delivery_point: null,
    // Format-only means no installed dataset covers the address: said as a reason, so it is never read as a pass.
    reason:
      failed[0] ??
      (verification === "format_only"
        ? "not_covered"
        : verification === "verified" && decidedBySample(ref)
          ? "sample_data"
          : null),
    ...risk({
      failed,
      formatOnly: verification === "format_only",
      poBox,
      verifiedAt: verification === "verified" ? precision : null,
    }),
    sources: [...new Set(consulted)].map((s): Source => (typeof s === "string" ? cited(ref, s, read.country) : s)),
    policy: null,
  };
}
