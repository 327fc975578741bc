import type { FeedbackShape } from "../../engines/lists/feedback-shape";
import { formatIp, parseIp, rangeKey } from "../../platform/ip-address";
import { IP_OUTCOMES, type IpResult } from "./result";
import { readRanges } from "./store";
import { testAnswer } from "./test-values";

/**
 * What the account learned about an address after using it (docs/ip.md, "Feedback"): `legit` (the good one),
 * `fraud`, `chargeback`, `abuse`, `spam`. Nothing is suppressed: every later answer of the account for that address,
 * single lookups included, carries the latest report of the last `FEEDBACK_WINDOW_DAYS` days in `feedback`, with its
 * risk component and `reason` (`answer.ts`). Grouped in the summary by the AS announcing the address when it was
 * reported. No sender reports IP outcomes, so there is no inbound route.
 */
export const FEEDBACK_WINDOW_DAYS = 90;
/** The summary's `asn` of an address no installed dataset gives an AS (reserved, unrouted, `ip-asn` not installed). */
export const NO_ASN = "unknown";

const asnText = (asn: number | null | undefined) => (asn == null ? NO_ASN : `AS${asn}`);

export const ipFeedback: FeedbackShape<string, IpResult> = {
  valueField: "ip",
  outcomes: IP_OUTCOMES,
  facet: "asn",
  read(input) {
    // The lookup's key (`ipKey`): the normalized address.
    const ip = parseIp(input);
    return ip ? { key: formatIp(ip), facet: NO_ASN } : null;
  },
  async facets(env, keys) {
    // Test values answer their canned AS; every other address the installed `ip-asn` (one D1 batch for all of them).
    const looked = keys.filter((key) => !testAnswer(key));
    const { hits } = await readRanges(
      env.DB,
      looked.map((key) => rangeKey(parseIp(key)!)),
      null,
    );
    const asnOf = new Map(looked.map((key, i) => [key, hits[i]?.asn?.asn]));
    return keys.map((key) => asnText(testAnswer(key)?.asn ?? asnOf.get(key)));
  },
  providers: {},
};
