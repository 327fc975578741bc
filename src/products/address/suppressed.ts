import { answer, prepare } from "./answer";
import { NO_REFERENCE } from "./reference";
import type { AddressInput, AddressResult } from "./result";
import { risk } from "./score";
import { whole, DELIVERY_FEEDBACK, SUPPRESSION_LIST } from "../../engines/sources";

/**
 * The stored answers of suppressed addresses, which batches, bulk rows and monitor runs give instead of a lookup:
 * the address as read (not looked up), never valid, `risk_score` 100.
 */

/** An address suppressed by hand (`POST /address/suppressions`). */
export function manualSuppression(input: AddressInput): AddressResult {
  const read = answer(prepare(input), NO_REFERENCE);
  return {
    ...read,
    valid: false,
    verification: "invalid",
    reason: "suppressed",
    ...risk({ failed: ["suppressed"], formatOnly: false, poBox: false }),
  };
}

/**
 * An address suppressed by delivery feedback (mail returned, or reported undeliverable): `deliverable: false` and the
 * outcome as `reason`, citing `delivery-feedback` with the day of the event and the account's suppression list.
 */
export function feedbackSuppression(
  input: AddressInput,
  reason: "returned" | "undeliverable",
  at: number,
): AddressResult {
  const manual = manualSuppression(input);
  return {
    ...manual,
    deliverable: false,
    delivery_point: null,
    reason,
    sources: [
      whole(DELIVERY_FEEDBACK, new Date(at).toISOString().slice(0, 10)),
      whole(SUPPRESSION_LIST, "account"),
      ...manual.sources,
    ],
  };
}
