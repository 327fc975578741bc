import { prepare } from "./answer";
import { lineKeys } from "./line-key";
import { placeKey } from "./names";
import type { AddressInput } from "./result";

/**
 * The one address key (docs/address.md, "Address keys"): repeats, suppressions, batch and bulk dedupe, monitors,
 * history and delivery feedback all key an address by it. `country|postcode|locality|region|line1|line2`: the postcode
 * in its country's spelling, locality and region folded as place names (`St Louis` = `Saint Louis`), the lines folded
 * with the street table (`350 Fifth Ave` = `350 Fifth Avenue`, `12 Elm St` is not `12 Elm Saint`).
 */
export function addressKey(input: AddressInput): string {
  const { read, postcode } = prepare(input);
  const place = (value: string | null) => (value ? placeKey(value) : "");
  return [
    read.country,
    postcode ?? "",
    place(read.locality),
    place(read.region),
    ...lineKeys(read.country, read.line1, read.line2),
  ].join("|");
}
