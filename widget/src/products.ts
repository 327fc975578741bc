import type { paths } from "../../client/src/openapi.gen";

/** What a person sees under a field, and the state the field is marked with (`data-verify-state`). */
export interface View {
  state: string;
  tone: "ok" | "warn" | "bad" | null;
  text: string;
  /** A corrected value offered as "Did you mean ...?", accepted with one click. */
  suggestion: string | null;
  /** Sets `aria-invalid` on the field: the value cannot work as typed. */
  invalid: boolean;
}

/**
 * One browser endpoint (`POST /api/v1/{name}/public`) as the widget uses it. A product plugs in with one module here
 * and one entry in PRODUCTS; test/e2e/widget-products.test.ts fails while the served API has a browser endpoint for a
 * form field that no module covers, or a module names an endpoint the API does not serve.
 */
export interface WidgetProduct {
  name: string;
  /** Inputs attached automatically. */
  selector: string;
  /** The request fields for the input's current value; null while it is not worth a lookup yet. */
  request(input: HTMLInputElement): Record<string, string> | null;
  view(data: unknown): View;
}

type EmailAnswer = paths["/api/v1/email/public"]["post"]["responses"][200]["content"]["application/json"]["data"];

/**
 * Answers a person can act on; `unverified`, `catch_all` and the like are the site's business (the event), not theirs.
 */
const EMAIL_TEXT: Record<string, [View["tone"], string]> = {
  invalid_syntax: ["bad", "This is not a valid email address."],
  mailbox_not_found: ["bad", "This mailbox does not exist."],
  mailbox_disabled: ["bad", "This mailbox is disabled."],
  mailbox_full: ["warn", "This mailbox is full: messages to it bounce for now."],
  no_mx: ["bad", "This domain cannot receive email."],
  null_mx: ["bad", "This domain cannot receive email."],
  typo_domain: ["bad", "This domain looks like a typo."],
  invalid_username: ["bad", "This address cannot exist at this provider."],
  disposable: ["warn", "This looks like a disposable address."],
  role: ["warn", "This looks like a shared address (such as info@). A personal one works best."],
};

export const email: WidgetProduct = {
  name: "email",
  selector: 'input[type="email"]',
  request(input) {
    const value = input.value.trim();
    // Complete enough to be an address: something@domain.tld. Anything shorter is still being typed.
    return /^[^@\s]+@[^@\s]+\.[^@\s.]{2,}$/.test(value) ? { email: value } : null;
  },
  view(data) {
    const answer = data as EmailAnswer;
    const state = answer.deliverable;
    const invalid = state === "undeliverable";
    if (answer.did_you_mean)
      return { state, tone: "warn", text: "Did you mean", suggestion: answer.did_you_mean, invalid };
    const [tone, text] =
      EMAIL_TEXT[answer.reason ?? ""] ?? (state === "deliverable" ? ["ok", "Looks good."] : [null, ""]);
    return { state, tone, text, suggestion: null, invalid };
  },
};

type AddressAnswer = paths["/api/v1/address/public"]["post"]["responses"][200]["content"]["application/json"]["data"];

const ADDRESS_TEXT: Record<string, [View["tone"], string]> = {
  invalid_postcode_format: ["bad", "This postcode is not written the way this country writes them."],
  unknown_postcode: ["bad", "This postcode does not exist."],
  locality_mismatch: ["warn", "This town does not match the postcode."],
  region_mismatch: ["warn", "This region does not match the postcode."],
  missing_components: ["warn", "Part of the address is missing."],
  // Confirmed by synthetic sample rows only (`sources[].coverage: "sample"`): never shown as a real confirmation.
  sample_data: ["warn", "Checked against sample data only, not a real register."],
};

/**
 * A one-line address field (`autocomplete="street-address"`), looked up with the country of the form's
 * `autocomplete="country"` field or the input's `data-verify-country`; without a country there is nothing to ask.
 */
export const address: WidgetProduct = {
  name: "address",
  selector: 'input[autocomplete="street-address"]',
  request(input) {
    const value = input.value.trim();
    const countryField = input.form?.querySelector<HTMLInputElement | HTMLSelectElement>('[autocomplete="country"]');
    const country = (input.dataset.verifyCountry ?? countryField?.value ?? "").trim().toUpperCase();
    return value.length >= 8 && /^[A-Z]{2}$/.test(country) ? { address: value, country } : null;
  },
  view(data) {
    const answer = data as AddressAnswer;
    const state = answer.verification;
    const invalid = state === "invalid";
    const [tone, text] =
      ADDRESS_TEXT[answer.reason ?? ""] ?? (state === "verified" ? ["ok", "Address confirmed."] : [null, ""]);
    return { state, tone, text, suggestion: null, invalid };
  },
};

type PhoneAnswer = paths["/api/v1/phone/public"]["post"]["responses"][200]["content"]["application/json"]["data"];

const PHONE_TEXT: Record<string, [View["tone"], string]> = {
  invalid_number: ["bad", "This is not a valid phone number."],
  disposable: ["warn", "This number is used on public sites that receive texts for anyone. A personal one works best."],
  premium_rate: ["warn", "This is a premium-rate number."],
  sample_data: ["warn", "Checked against sample data only, not a real register."],
};

/** What to tell a person whose number was written without a country code and none could be assumed. */
const NEEDS_COUNTRY = "Add the country code, such as +44.";

/**
 * A phone field (`input[type="tel"]`), looked up with the region of the input's `data-verify-country` or the form's
 * `autocomplete="country"` field when given, so numbers written the national way can be read.
 */
export const phone: WidgetProduct = {
  name: "phone",
  selector: 'input[type="tel"]',
  request(input) {
    const value = input.value.trim();
    const countryField = input.form?.querySelector<HTMLInputElement | HTMLSelectElement>('[autocomplete="country"]');
    const country = (input.dataset.verifyCountry ?? countryField?.value ?? "").trim().toUpperCase();
    // Seven digits is the shortest a subscriber number runs to; anything shorter is still being typed.
    if ((value.match(/\d/g) ?? []).length < 7) return null;
    const fields: Record<string, string> = { phone: value };
    if (/^[A-Z]{2}$/.test(country)) fields.country = country;
    return fields;
  },
  view(data) {
    const answer = data as PhoneAnswer;
    const state = answer.valid ? "valid" : "invalid";
    if (answer.validation_error === "INVALID_COUNTRY")
      return { state, tone: "bad", text: NEEDS_COUNTRY, suggestion: null, invalid: true };
    const [tone, text] = PHONE_TEXT[answer.reason ?? ""] ?? (answer.valid ? ["ok", "Looks good."] : [null, ""]);
    return { state, tone, text, suggestion: null, invalid: !answer.valid };
  },
};

/** Every product the widget attaches to, in the order fields are looked for. */
export const PRODUCTS: readonly WidgetProduct[] = [email, address, phone];
