import { PartnerError } from "./guard";
import { basicAuth, failureOf, jsonOf } from "./http";
import type { NetworkAnswer, NetworkLineType, PhoneNetworkPartner } from "./types";

/** Twilio Lookup v2 line types (`line_type_intelligence.type`) in our line types. */
const LINE_TYPES: Record<string, NetworkLineType> = {
  mobile: "mobile",
  landline: "fixed_line",
  fixedVoip: "voip",
  nonFixedVoip: "voip",
  personal: "personal_number",
  tollFree: "toll_free",
  premium: "premium_rate",
  sharedCost: "shared_cost",
  uan: "uan",
  voicemail: "voicemail",
  pager: "pager",
};

/** Twilio's error code for a number that is unprovisioned or out of coverage: not in service. */
const UNPROVISIONED = 60600;

interface LookupV2 {
  phone_number?: string;
  valid?: boolean;
  line_type_intelligence?: {
    carrier_name: string | null;
    type: string | null;
    mobile_country_code: string | null;
    mobile_network_code: string | null;
    error_code: number | null;
  } | null;
  sim_swap?: { last_sim_swap: { swapped_in_period: boolean | null } | null; error_code: number | null } | null;
}

/**
 * Twilio Lookup v2 (`GET /v2/PhoneNumbers/{e164}?Fields=line_type_intelligence[,sim_swap]`, HTTP Basic with the
 * account SID and auth token). Errors come as `{code, message, more_info, status}`; 404 (code 20404) is a number
 * Twilio does not know, an answer: inactive.
 */
export function twilio(
  env: Env & { TWILIO_ACCOUNT_SID?: string; TWILIO_AUTH_TOKEN?: string },
): PhoneNetworkPartner | null {
  if (!env.TWILIO_ACCOUNT_SID || !env.TWILIO_AUTH_TOKEN) return null;
  const auth = basicAuth(env.TWILIO_ACCOUNT_SID, env.TWILIO_AUTH_TOKEN);
  const simSwap = env.TWILIO_SIM_SWAP === "true";
  const base = env.TWILIO_LOOKUP_URL.replace(/\/$/, "");
  return {
    name: "twilio",
    dataset: "twilio-lookup",
    async check(e164, signal): Promise<NetworkAnswer> {
      const fields = simSwap ? "line_type_intelligence,sim_swap" : "line_type_intelligence";
      const response = await fetch(`${base}/v2/PhoneNumbers/${encodeURIComponent(e164)}?Fields=${fields}`, {
        headers: { Authorization: auth, Accept: "application/json" },
        signal,
      });
      const failure = await failureOf(response, [200, 404]);
      if (failure) throw failure;
      if (response.status === 404) return { status: "inactive", lineType: null, carrier: null, simSwapped: null };
      const body = await jsonOf<LookupV2>(response);
      if (typeof body.valid !== "boolean") throw new PartnerError("malformed", "no `valid` in the answer");
      const lti = body.line_type_intelligence ?? null;
      if (!body.valid || lti?.error_code === UNPROVISIONED)
        return { status: "inactive", lineType: null, carrier: null, simSwapped: null };
      const swap =
        body.sim_swap && body.sim_swap.error_code === null
          ? (body.sim_swap.last_sim_swap?.swapped_in_period ?? null)
          : null;
      const carrier = lti?.error_code ? null : (lti?.carrier_name ?? null);
      return {
        // A number a network holds is provisioned (active); without a network Twilio cannot say.
        status: carrier ? "active" : "unknown",
        lineType: (lti?.type && LINE_TYPES[lti.type]) || null,
        carrier,
        simSwapped: swap,
      };
    },
  };
}
