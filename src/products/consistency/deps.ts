import type { z } from "zod";
import type { Product, ProductContext, Source } from "../../engines/product";
import type { Signals } from "./result";

/**
 * What consistency needs of the products it compares. It imports none of them: the registry, the one place that knows
 * every product, hands them in (src/products/registry.ts). The answer types below name only the fields the checks read.
 */

export interface EmailAnswer {
  email: string;
  syntax_valid: boolean;
  domain: string;
  free_provider: boolean;
  disposable: boolean;
  sources: Source[];
}

export interface PhoneAnswer {
  phone: string;
  valid: boolean;
  e164: string | null;
  country: string | null;
  line_type: string;
  network_checked: boolean;
  reason: string | null;
  sources: Source[];
}

/** IP's answer: the fields a signal reads (src/products/consistency/result.ts `Signals`), its reason and sources. */
export type IpAnswer = NonNullable<Signals["ip"]> & { reason: string | null; sources: Source[] };

export interface AddressAnswer {
  country: string;
  /** `unsupported_country` when the country has no address data. */
  reason: string | null;
  address: { postcode: string | null; locality: string | null };
  postcode_found: boolean | null;
  locality_matches_postcode: boolean | null;
  sources: Source[];
}

export interface EntityAnswer {
  identifier: string;
  found: boolean;
  name: string | null;
  country: string | null;
  reason: string | null;
  sources: Source[];
}

/**
 * One compared product as the engines see it, reduced to what consistency calls. Its values are opaque here
 * (`unknown`): consistency only hands them back to the product's own functions.
 */
export type SignalProduct<Out> = Pick<
  Product<unknown, Out>,
  "input" | "normalize" | "local" | "lookup" | "isSample" | "datasets" | "readsFeedback"
>;

export interface ConsistencyDeps {
  email: SignalProduct<EmailAnswer>;
  phone: SignalProduct<PhoneAnswer>;
  ip: SignalProduct<IpAnswer>;
  address: SignalProduct<AddressAnswer>;
  entity: SignalProduct<EntityAnswer>;
  /** Email's pipeline without the mailbox handshake: a consistency call opens no SMTP session. */
  emailWithoutHandshake(ctx: ProductContext, values: string[]): Promise<EmailAnswer[]>;
  /** The object form of a company identifier (`{identifier, type, country}`), the only one the body accepts. */
  entityObject: z.ZodType;
}
