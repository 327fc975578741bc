import { PartnerError } from "./guard";
import { failureOf, jsonOf } from "./http";
import type { DeliveryAnswer, DeliveryMatch, DeliveryPointPartner, DeliveryQuery } from "./types";

/** The USPS areas Smarty's US Street Address API answers. */
const COUNTRIES = new Set(["US", "PR", "VI", "GU", "AS", "MP"]);

const MATCHES: Record<string, DeliveryMatch> = {
  Y: "confirmed",
  S: "confirmed_secondary_ignored",
  D: "missing_secondary",
  N: "not_confirmed",
};

interface Candidate {
  input_index: number;
  delivery_line_1?: string;
  delivery_line_2?: string;
  components?: { city_name?: string; state_abbreviation?: string; zipcode?: string; plus4_code?: string };
  metadata?: { rdi?: string };
  analysis?: {
    dpv_match_code?: string | null;
    dpv_vacant?: string | null;
    dpv_footnotes?: string | null;
    footnotes?: string | null;
  };
}

/** Smarty's footnote strings are concatenated codes: DPV footnotes two letters each, the others ending in `#`. */
const split = (dpv: string | null | undefined, other: string | null | undefined) => [
  ...(dpv?.match(/../g) ?? []),
  ...(other?.match(/[A-Z0-9]+#/g) ?? []),
];

const yesNo = (value: string | null | undefined) => (value === "Y" ? true : value === "N" ? false : null);

function readCandidate(c: Candidate | undefined): DeliveryAnswer {
  if (!c) return { match: "not_confirmed", vacant: null, residential: null, standardized: null, footnotes: [] };
  const a = c.analysis ?? {};
  const parts = c.components ?? {};
  const zip = parts.zipcode ? (parts.plus4_code ? `${parts.zipcode}-${parts.plus4_code}` : parts.zipcode) : null;
  return {
    match: MATCHES[a.dpv_match_code ?? ""] ?? "not_confirmed",
    vacant: yesNo(a.dpv_vacant),
    residential: c.metadata?.rdi === "Residential" ? true : c.metadata?.rdi === "Commercial" ? false : null,
    standardized: {
      line1: c.delivery_line_1 ?? null,
      line2: c.delivery_line_2 ?? null,
      locality: parts.city_name ?? null,
      region: parts.state_abbreviation ?? null,
      postcode: zip,
    },
    footnotes: split(a.dpv_footnotes, a.footnotes),
  };
}

/**
 * Smarty US Street Address API: `POST /street-address?auth-id=&auth-token=` with a JSON array of up to 100 inputs;
 * the answer is an array of candidates, each naming its `input_index`. With `match: strict` an address USPS does not
 * know has no candidate. Errors are status codes (400, 401, 402, 413, 422, 429 with Retry-After, 5xx).
 */
export function smarty(
  env: Env & { SMARTY_AUTH_ID?: string; SMARTY_AUTH_TOKEN?: string },
): DeliveryPointPartner | null {
  if (!env.SMARTY_AUTH_ID || !env.SMARTY_AUTH_TOKEN) return null;
  const base = env.SMARTY_US_STREET_URL.replace(/\/$/, "");
  const url =
    `${base}/street-address?auth-id=${encodeURIComponent(env.SMARTY_AUTH_ID)}` +
    `&auth-token=${encodeURIComponent(env.SMARTY_AUTH_TOKEN)}`;
  return {
    name: "smarty",
    dataset: "smarty-us-street",
    covers: (country) => COUNTRIES.has(country),
    perCall: 100,
    async check(queries: DeliveryQuery[], signal: AbortSignal) {
      const body = queries.map((q, i) => ({
        input_id: String(i),
        street: q.line1 ?? "",
        secondary: q.line2 ?? "",
        city: q.locality ?? "",
        state: q.region ?? "",
        zipcode: q.postcode ?? "",
        candidates: 1,
        match: "strict",
      }));
      const response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json; charset=utf-8" },
        body: JSON.stringify(body),
        signal,
      });
      const failure = await failureOf(response);
      if (failure) throw failure;
      const candidates = await jsonOf<Candidate[]>(response);
      if (!Array.isArray(candidates)) throw new PartnerError("malformed", "the answer is not an array of candidates");
      const byInput = new Map(candidates.map((c) => [c.input_index, c]));
      return queries.map((_, i) => readCandidate(byInput.get(i)));
    },
  };
}
