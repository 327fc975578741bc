import { PartnerError } from "./guard";
import { basicAuth, failureOf, jsonOf } from "./http";
import type { NetworkAnswer, NetworkLineType, PhoneNetworkPartner } from "./types";

/** Vonage `current_carrier.network_type` in our line types. */
const LINE_TYPES: Record<string, NetworkLineType> = {
  mobile: "mobile",
  landline: "fixed_line",
  landline_premium: "premium_rate",
  landline_tollfree: "toll_free",
  virtual: "voip",
  pager: "pager",
};

const INACTIVE = new Set(["absent", "undeliverable", "bad_number"]);

interface Advanced {
  status: number;
  status_message?: string;
  error_text?: string;
  valid_number?: string;
  reachable?: string;
  current_carrier?: { name: string | null; network_type: string | null } | null;
}

/**
 * Vonage Number Insight Advanced (`GET /ni/advanced/json?number=`, HTTP Basic with the API key and secret). Vonage
 * answers HTTP 200 with a `status`: 0 success, 1 throttled (a rate limit), 3 invalid number (for a number our plan
 * reads as valid: not in service), 4 bad credentials, 5 internal error, 9 quota exceeded, 43-45 lookup unavailable.
 */
export function vonage(env: Env & { VONAGE_API_KEY?: string; VONAGE_API_SECRET?: string }): PhoneNetworkPartner | null {
  if (!env.VONAGE_API_KEY || !env.VONAGE_API_SECRET) return null;
  const auth = basicAuth(env.VONAGE_API_KEY, env.VONAGE_API_SECRET);
  const base = env.VONAGE_API_URL.replace(/\/$/, "");
  return {
    name: "vonage",
    dataset: "vonage-number-insight",
    async check(e164, signal): Promise<NetworkAnswer> {
      const response = await fetch(`${base}/ni/advanced/json?number=${encodeURIComponent(e164.replace(/^\+/, ""))}`, {
        headers: { Authorization: auth },
        signal,
      });
      const failure = await failureOf(response);
      if (failure) throw failure;
      const body = await jsonOf<Advanced>(response);
      const message = body.status_message ?? body.error_text ?? "";
      if (body.status === 1) throw new PartnerError("rate_limited", `throttled: ${message}`, null);
      if (body.status === 4) throw new PartnerError("auth", `invalid credentials: ${message}`);
      if (body.status === 3) return { status: "inactive", lineType: null, carrier: null, simSwapped: null };
      // Status 43-45 ("lookup not available") still carry the standard fields; everything else non-zero is a failure.
      if (body.status !== 0 && !(body.status >= 43 && body.status <= 45))
        throw new PartnerError("error", `status ${body.status}: ${message}`);
      if (body.valid_number === "not_valid")
        return { status: "inactive", lineType: null, carrier: null, simSwapped: null };
      const reachable = body.reachable ?? "unknown";
      const carrier = body.current_carrier ?? null;
      return {
        status: reachable === "reachable" ? "active" : INACTIVE.has(reachable) ? "inactive" : "unknown",
        lineType: (carrier?.network_type && LINE_TYPES[carrier.network_type]) || null,
        carrier: carrier?.name ?? null,
        simSwapped: null,
      };
    },
  };
}
