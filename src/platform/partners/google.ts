import { PartnerError } from "./guard";
import { failureOf, jsonOf } from "./http";
import type { DeliveryAnswer, DeliveryPointPartner, DeliveryQuery } from "./types";

interface Validation {
  result?: {
    verdict?: { validationGranularity?: string; addressComplete?: boolean; hasUnconfirmedComponents?: boolean };
    address?: {
      postalAddress?: { addressLines?: string[]; locality?: string; administrativeArea?: string; postalCode?: string };
    };
    metadata?: { residential?: boolean; business?: boolean };
    uspsData?: { dpvConfirmation?: string; dpvVacant?: string; dpvFootnote?: string };
  };
}

const PREMISE = new Set(["PREMISE", "SUB_PREMISE"]);

/** Google's verdict as a delivery-point match: a complete address confirmed down to the premise is confirmed. */
function readResult(v: Validation): DeliveryAnswer {
  const result = v.result ?? {};
  const verdict = result.verdict ?? {};
  const usps = result.uspsData;
  const granularity = verdict.validationGranularity ?? "OTHER";
  const confirmed =
    PREMISE.has(granularity) && verdict.addressComplete === true && verdict.hasUnconfirmedComponents !== true;
  const match = usps?.dpvConfirmation
    ? (({ Y: "confirmed", S: "confirmed_secondary_ignored", D: "missing_secondary" } as const)[
        usps.dpvConfirmation as "Y" | "S" | "D"
      ] ?? "not_confirmed")
    : confirmed
      ? "confirmed"
      : "not_confirmed";
  const postal = result.address?.postalAddress;
  const lines = postal?.addressLines ?? [];
  return {
    match,
    vacant: usps?.dpvVacant === "Y" ? true : usps?.dpvVacant === "N" ? false : null,
    residential: result.metadata?.residential ?? (result.metadata?.business ? false : null),
    standardized: postal
      ? {
          line1: lines[0] ?? null,
          line2: lines[1] ?? null,
          locality: postal.locality ?? null,
          region: postal.administrativeArea ?? null,
          postcode: postal.postalCode ?? null,
        }
      : null,
    footnotes: usps?.dpvFootnote ? (usps.dpvFootnote.match(/../g) ?? []) : [`granularity:${granularity}`],
  };
}

/**
 * Google Address Validation (`POST /v1:validateAddress`, the API key in `X-Goog-Api-Key`): one address a call, as a
 * `PostalAddress`; errors are `{error: {code, message, status}}` (400 INVALID_ARGUMENT for an unsupported region, 429
 * RESOURCE_EXHAUSTED).
 */
export function google(env: Env & { GOOGLE_ADDRESS_VALIDATION_KEY?: string }): DeliveryPointPartner | null {
  if (!env.GOOGLE_ADDRESS_VALIDATION_KEY) return null;
  const key = env.GOOGLE_ADDRESS_VALIDATION_KEY;
  const url = `${env.GOOGLE_ADDRESS_VALIDATION_URL.replace(/\/$/, "")}/v1:validateAddress`;
  return {
    name: "google",
    dataset: "google-address-validation",
    // Smarty answers the USPS areas when configured; Google is asked for the rest (and for them when Smarty is not).
    covers: (country) => country !== "ZZ",
    perCall: 1,
    async check(queries: DeliveryQuery[], signal: AbortSignal) {
      const q = queries[0]!;
      const address = {
        regionCode: q.country,
        addressLines: [q.line1, q.line2].filter((line): line is string => Boolean(line)),
        ...(q.locality ? { locality: q.locality } : {}),
        ...(q.region ? { administrativeArea: q.region } : {}),
        ...(q.postcode ? { postalCode: q.postcode } : {}),
      };
      const response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Goog-Api-Key": key },
        body: JSON.stringify({ address }),
        signal,
      });
      const failure = await failureOf(response);
      if (failure) throw failure;
      const body = await jsonOf<Validation>(response);
      if (!body.result) throw new PartnerError("malformed", "no `result` in the answer");
      return [readResult(body)];
    },
  };
}
