import type { FeedbackShape } from "../../engines/lists/feedback-shape";
import { prepare } from "./answer";
import { addressKey } from "./key";
import type { AddressInput, AddressResult } from "./result";
import { feedbackSuppression } from "./suppressed";
import { isTestAddress } from "./test-addresses";

const SUPPRESSING = new Set(["returned", "undeliverable"]);

/**
 * Address delivery feedback (docs/address.md, "Delivery feedback"): outcomes `delivered`, `returned` (the mail came
 * back) and `undeliverable` (the carrier could not deliver it), grouped by country. Returned and undeliverable mail
 * suppress the address; test addresses are recorded but never suppressed. No sender posts postal outcomes, so there
 * is no inbound webhook.
 */
export const addressFeedback: FeedbackShape<AddressInput, AddressResult> = {
  valueField: "address",
  outcomes: ["delivered", "returned", "undeliverable"],
  facet: "country",
  // An address a lookup answers from its form alone (no country, a postcode of the wrong shape) is not recorded.
  read(input) {
    if (isTestAddress(input)) return { key: addressKey(input), facet: "ZZ" };
    const prepared = prepare(input);
    return prepared.supported && prepared.shapeValid !== false
      ? { key: addressKey(input), facet: prepared.read.country }
      : null;
  },
  suppresses(event) {
    if (!SUPPRESSING.has(event.outcome) || isTestAddress(event.value)) return null;
    const reason = event.outcome as "returned" | "undeliverable";
    return { reason, result: feedbackSuppression(event.value, reason, event.occurredAt ?? Date.now()) };
  },
  providers: {},
};
