/** What partners answer, in the product-neutral terms the products read (docs/partners.md). */

export type NetworkLineType =
  | "mobile"
  | "fixed_line"
  | "voip"
  | "toll_free"
  | "premium_rate"
  | "shared_cost"
  | "personal_number"
  | "pager"
  | "uan"
  | "voicemail";

export interface NetworkAnswer {
  status: "active" | "inactive" | "unknown";
  /** Null when the partner gives none (the numbering plan's stands). */
  lineType: NetworkLineType | null;
  /** The network that holds the number now, as the partner names it. */
  carrier: string | null;
  simSwapped: boolean | null;
}

export interface PhoneNetworkPartner {
  name: string;
  /** The `sources` dataset name of its answers. */
  dataset: string;
  check(e164: string, signal: AbortSignal): Promise<NetworkAnswer>;
}

export interface DeliveryQuery {
  line1: string | null;
  line2: string | null;
  locality: string | null;
  region: string | null;
  postcode: string | null;
  country: string;
}

export type DeliveryMatch = "confirmed" | "confirmed_secondary_ignored" | "missing_secondary" | "not_confirmed";

export interface DeliveryAnswer {
  match: DeliveryMatch;
  vacant: boolean | null;
  residential: boolean | null;
  standardized: {
    line1: string | null;
    line2: string | null;
    locality: string | null;
    region: string | null;
    postcode: string | null;
  } | null;
  footnotes: string[];
}

export interface DeliveryPointPartner {
  name: string;
  dataset: string;
  covers(country: string): boolean;
  /** Most addresses one call may carry (Smarty: 100 a POST; Google: 1). */
  perCall: number;
  check(queries: DeliveryQuery[], signal: AbortSignal): Promise<DeliveryAnswer[]>;
}

/** A partner's entry in an answer's `sources`: `full` when it answered, `none` when asked without an answer. */
export interface PartnerSource {
  dataset: string;
  /** The time of the check (ISO 8601), after the stand-ins' label under `npm run dev -- --offline`. */
  version: string;
  /** A partner answers for what it was asked: `full` (products.md); its offline stand-in `sample`; silent `none`. */
  coverage: "full" | "sample" | "none";
}

/**
 * What the partners said of one value: the answer, or null when none answered. `sources` cites each partner asked,
 * in order: those that gave no answer as `none`, then the one that answered; empty when none was asked (none
 * configured or covering, or the account's daily ceiling spent).
 */
export interface PartnerCheck<T> {
  answer: T | null;
  sources: PartnerSource[];
}

export const UNASKED = { answer: null, sources: [] } as const satisfies PartnerCheck<never>;
