/// <reference types="vite/client" />
/**
 * The second source the postcode formats are checked against (docs/address.md, "Postcode formats"): postal-codes-js
 * (Cimpress, Apache-2.0; per-country formats with the post offices' references and test data), read from its own data
 * files and applied exactly as its `validate` does: drop its redundant characters (space, dash), then match its
 * expression whole, case-insensitively. Independent of postcode-validator, which the answers use.
 */
import byAlpha2 from "postal-codes-js/generated/postal-codes-alpha2.json";

interface Format {
  Description: string;
  RedundantCharacters: string;
  ValidationRegex: string | string[];
  TestData: { Valid: string[]; Invalid: string[] };
}

const files = import.meta.glob<Format>("../node_modules/postal-codes-js/formats/*.json", {
  eager: true,
  import: "default",
});
const formatNamed = (file: string) => files[`../node_modules/postal-codes-js/formats/${file}`]!;

const COUNTRIES = byAlpha2 as Record<string, { postalCodeFormat?: string }>;

/** The package's format of a country; undefined when it does not know the country, null when it uses no postcodes. */
export function secondFormat(country: string): Format | null | undefined {
  const data = COUNTRIES[country];
  if (!data) return undefined;
  return data.postalCodeFormat ? formatNamed(data.postalCodeFormat) : null;
}

/** postal-codes-js's verdict on a postcode, as its `validate` reaches it. */
export function secondSourceValid(country: string, postcode: string): boolean | null {
  const format = secondFormat(country);
  if (!format) return null;
  let value = postcode.trim();
  for (const ch of format.RedundantCharacters) value = value.split(ch).join("");
  const expression = Array.isArray(format.ValidationRegex)
    ? `^${format.ValidationRegex.join("|")}$`
    : format.ValidationRegex;
  const match = new RegExp(expression, "i").exec(value);
  return match !== null && match[0].toLowerCase() === value.toLowerCase();
}

export const secondSourceCountries = () => Object.keys(COUNTRIES);
