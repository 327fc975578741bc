import { isExhaustive, isSample } from "../../db/coverage";
import { ADDRESS_DATASETS, type AddressDatasetName } from "./datasets";
import type { Installed, StoredPostcode } from "./store";

/** What the reference data says about one prepared address. */
export interface Reference {
  installed: Installed;
  /** Installed postcode datasets that cover the country, and their rows for the postcode. */
  covering: AddressDatasetName[];
  rows: StoredPostcode[];
  /**
   * Installed street datasets that cover the country; whether one lists the street of line 1 (null: none consulted).
   */
  streetDatasets: AddressDatasetName[];
  streetFound: boolean | null;
  /**
   * Installed premise registers of the country; whether line 1's house number is listed on its street (null: not
   * asked).
   */
  premiseDatasets: AddressDatasetName[];
  premiseFound: boolean | null;
}

/** What an answer knows when no dataset was read: only the address's form is checked. */
export const NO_REFERENCE: Reference = {
  installed: new Map(),
  covering: [],
  rows: [],
  streetDatasets: [],
  streetFound: null,
  premiseDatasets: [],
  premiseFound: null,
};

export const coveringDatasets = (installed: Installed, country: string, holds: "postcodes" | "streets" | "premises") =>
  [...installed.keys()].filter(
    (name) => ADDRESS_DATASETS[name].holds.includes(holds) && ADDRESS_DATASETS[name].countries.includes(country),
  );

/**
 * Whether what confirmed the address rests on synthetic samples alone: the postcode held only by `sample` datasets, or
 * the street or premise that gave the precision listed only by them. Such an answer says so in its reason.
 */
export function decidedBySample(ref: Reference): boolean {
  const sampleOnly = (names: string[]) =>
    names.length > 0 && names.every((name) => isSample(ref.installed.get(name as AddressDatasetName)?.coverage));
  return (
    sampleOnly([...new Set(ref.rows.map((r) => r.dataset))]) ||
    (ref.streetFound === true && sampleOnly(ref.streetDatasets)) ||
    (ref.premiseFound === true && sampleOnly(ref.premiseDatasets))
  );
}

/**
 * Whether a postcode none of `covering` holds is unknown: only when one of them is the publisher's complete file for
 * the country (src/db/coverage.ts). Otherwise it is outside what is installed, and null (`not_covered`).
 */
export function postcodeFound(ref: Reference, country: string): boolean | null {
  if (ref.rows.length) return true;
  return ref.covering.some((name) => isExhaustive(ref.installed.get(name)!.coverage, country)) ? false : null;
}
