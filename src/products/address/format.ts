import addressFormatter from "@fragaria/address-formatter";
import type { NormalizedAddress } from "./result";

/**
 * The address in its country's postal format (OpenCage address-formatting templates through
 * @fragaria/address-formatter): the lines an envelope carries, joined with line breaks, without the country line
 * (add it for mail sent from abroad). `line1` is the street line as written; `line2` follows it.
 */
export function formatted(address: NormalizedAddress): string | null {
  if (!address.line1 && !address.locality && !address.postcode) return null;
  const lines = addressFormatter.format(
    {
      road: address.line1 ?? undefined,
      city: address.locality ?? undefined,
      state: address.region ?? undefined,
      postcode: address.postcode ?? undefined,
      countryCode: address.country,
    },
    { output: "array", abbreviate: false, cleanupPostcode: false },
  );
  if (address.line2) lines.splice(address.line1 ? 1 : 0, 0, address.line2);
  return lines.join("\n");
}
