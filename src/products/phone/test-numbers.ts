import { reasonOf } from "./answer";
import { TEST_NUMBERS } from "./datasets";
import type { LineType, PhoneResult } from "./result";
import { scored } from "./score";
import { whole } from "../../engines/sources";

/**
 * Reserved numbers with canonical answers (docs/phone.md, "Test numbers"), from Ofcom's drama range +44 7700 900xxx,
 * which no subscriber ever holds: free, no dataset consulted, never in history or suppressions, the sandbox's samples.
 */
interface Canned {
  valid: boolean;
  line_type: LineType;
  disposable: boolean;
  carrier: string | null;
}

const CANNED: Record<string, Canned> = {
  "+447700900000": { valid: true, line_type: "mobile", disposable: false, carrier: "Test Mobile" },
  "+447700900001": { valid: true, line_type: "fixed_line", disposable: false, carrier: null },
  "+447700900002": { valid: true, line_type: "voip", disposable: false, carrier: "Test VoIP" },
  "+447700900003": { valid: true, line_type: "premium_rate", disposable: false, carrier: null },
  "+447700900004": { valid: true, line_type: "mobile", disposable: true, carrier: "Test Mobile" },
  "+447700900005": { valid: false, line_type: "unknown", disposable: false, carrier: null },
};

export const TEST_PHONE_NUMBERS = Object.keys(CANNED);

/** The canonical answer of a test number (E.164), or null when `e164` is not one; `phone` echoes the cleaned input. */
export function cannedAnswer(e164: string | null, phone: string): PhoneResult | null {
  const c = e164 === null ? undefined : CANNED[e164];
  if (!c) return null;
  const national = `07700 ${e164!.slice(-6)}`;
  const answer = {
    phone,
    valid: c.valid,
    possible: true,
    validation_error: null,
    e164: c.valid ? e164 : null,
    national_format: c.valid ? national : null,
    international_format: c.valid ? `+44 7700 ${e164!.slice(-6)}` : null,
    country: c.valid ? "GB" : null,
    calling_code: c.valid ? "44" : null,
    line_type: c.line_type,
    carrier: c.carrier,
    carrier_source: c.carrier === null ? null : ("allocation" as const),
    location: c.line_type === "fixed_line" ? "London" : null,
    timezones: c.valid ? ["Europe/London"] : null,
    disposable: c.disposable,
    disposable_last_seen: c.disposable ? "2026-01-01" : null,
    network_checked: false,
    network_status: null,
    sim_swapped: null,
  };
  const withReason = { ...answer, reason: reasonOf(answer) };
  return {
    ...withReason,
    ...scored(withReason),
    missing_datasets: [],
    sources: [whole(TEST_NUMBERS.name, TEST_NUMBERS.version)],
    policy: null,
  };
}
