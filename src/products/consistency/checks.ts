import { domainResemblesName } from "./names";
import type { Check, CheckName, CheckResult, FieldValue, SignalName, Signals } from "./result";

/** Each check's weight in the score (docs/consistency.md, "Weights"): how much its agreement says about one party. */
export const WEIGHTS: Record<CheckName, number> = {
  phone_country_matches_ip_country: 2,
  phone_country_matches_address_country: 3,
  ip_country_matches_address_country: 2,
  entity_country_matches_address_country: 3,
  entity_country_matches_phone_country: 2,
  entity_country_matches_ip_country: 1,
  email_tld_country_matches_address_country: 1,
  email_domain_resembles_entity_name: 2,
  email_is_business_for_entity: 3,
  address_postcode_matches_locality: 2,
  ip_not_anonymous: 3,
  phone_line_not_virtual: 2,
};

/** Lines a person answers: a mobile or a fixed line. Every other known type (VoIP, premium, pager, ...) is not one. */
const SUBSCRIBER_LINES = ["mobile", "fixed_line"];

/**
 * Whether the number is a person's own line, decided only on the line type a network partner reported today
 * (`line_type_source: network`): the numbering plan's type is the range's allocation, which a number ported to VoIP
 * keeps and which the North American plan cannot even split (`fixed_line_or_mobile`).
 */
function lineCheck(phone: Signals["phone"]): { outcome: Outcome; fields: Record<string, FieldValue> } {
  if (!phone) return { outcome: outcome("not_applicable", "signal_not_given"), fields: {} };
  const fields = { "phone.line_type": phone.line_type, "phone.line_type_source": phone.line_type_source };
  if (!phone.valid) return { outcome: outcome("unknown", "phone_invalid"), fields };
  if (phone.line_type_source !== "network")
    return { outcome: outcome("not_applicable", "line_type_not_checked"), fields };
  if (SUBSCRIBER_LINES.includes(phone.line_type)) return { outcome: outcome("agree", "subscriber_line"), fields };
  if (phone.line_type === "unknown" || phone.line_type === "fixed_line_or_mobile")
    return { outcome: outcome("unknown", "line_type_unknown"), fields };
  return { outcome: outcome("disagree", phone.line_type === "voip" ? "voip_line" : "not_a_subscriber_line"), fields };
}

type Outcome = { result: CheckResult; reason: string };

const outcome = (result: CheckResult, reason: string): Outcome => ({ result, reason });

/**
 * A country one signal gives, or why it gives none: `unknown` (it could not say) or `not_applicable` (it never says).
 */
type CountryOf = { field: string; value: string | null; missing: Outcome | null };

function countryOf(signals: Signals, signal: SignalName): CountryOf {
  const { email, phone, ip, address, entity } = signals;
  const unknown = (field: string, reason: string, value: string | null = null): CountryOf => ({
    field,
    value,
    missing: outcome("unknown", reason),
  });
  switch (signal) {
    case "phone":
      if (!phone!.valid) return unknown("phone.country", "phone_invalid");
      return phone!.country
        ? { field: "phone.country", value: phone!.country, missing: null }
        : unknown("phone.country", "phone_country_unknown");
    case "ip":
      if (!ip!.valid) return unknown("ip.country", "ip_invalid");
      if (ip!.reserved) return unknown("ip.country", "ip_reserved");
      return ip!.country
        ? { field: "ip.country", value: ip!.country, missing: null }
        : unknown("ip.country", "ip_not_placed");
    case "address":
      return address!.country_supported
        ? { field: "address.country", value: address!.country, missing: null }
        : unknown("address.country", "address_country_unsupported", address!.country);
    case "entity":
      if (!entity!.found) return unknown("entity.country", "entity_not_found");
      return entity!.country
        ? { field: "entity.country", value: entity!.country, missing: null }
        : unknown("entity.country", "entity_country_unknown");
    case "email":
      if (!email!.valid) return unknown("email.tld_country", "email_invalid");
      return {
        field: "email.tld_country",
        value: email!.tld_country,
        missing: email!.tld_country ? null : outcome("not_applicable", "no_country_tld"),
      };
  }
}

const given = (signals: Signals, names: readonly SignalName[]) => names.every((name) => signals[name] !== null);

/** The first unknown or not-applicable reason of the inputs, in their order; not-applicable wins over unknown. */
const firstMissing = (outcomes: (Outcome | null)[]) =>
  outcomes.find((o) => o?.result === "not_applicable") ?? outcomes.find((o) => o !== null) ?? null;

function ipNotAnonymous(ip: NonNullable<Signals["ip"]>): Outcome {
  if (!ip.valid) return outcome("unknown", "ip_invalid");
  if (ip.reserved) return outcome("unknown", "ip_reserved");
  if (ip.tor === true) return outcome("disagree", "tor_exit");
  if (ip.anonymous === true) return outcome("disagree", "anonymous_proxy");
  if (ip.hosting === true) return outcome("disagree", "hosting_network");
  return ip.anonymous === false ? outcome("agree", "not_anonymous") : outcome("unknown", "anonymity_unknown");
}

function countryCheck(
  signals: Signals,
  a: SignalName,
  b: SignalName,
  ipAnonymous: boolean,
): { outcome: Outcome; fields: Record<string, FieldValue> } {
  const present = [a, b].filter((name) => signals[name] !== null).map((name) => countryOf(signals, name));
  const fields = Object.fromEntries(present.map((c) => [c.field, c.value]));
  if (present.length < 2) return { outcome: outcome("not_applicable", "signal_not_given"), fields };
  const missing = firstMissing(present.map((c) => c.missing));
  if (missing) return { outcome: missing, fields };
  // An anonymizing IP's country is where its exit or server is, not where the person is: no evidence either way.
  if ((a === "ip" || b === "ip") && ipAnonymous) return { outcome: outcome("unknown", "ip_anonymous"), fields };
  return { outcome: compareCountries(present[0]!.value, present[1]!.value, a === "phone" || b === "phone"), fields };
}

/**
 * The UK's numbering plan (+44) is shared by the Crown Dependencies: a Guernsey, Jersey or Isle of Man number is a
 * +44 number like a British one, and people there live, work and bank across the four (docs/consistency.md,
 * "Numbering-plan families"). A phone's country agrees with any of the family; other countries compare exactly.
 */
const UK_NUMBERING_PLAN = new Set(["GB", "GG", "JE", "IM"]);

function compareCountries(a: string | null, b: string | null, phone: boolean): Outcome {
  if (a === b) return outcome("agree", "countries_match");
  if (phone && a && b && UK_NUMBERING_PLAN.has(a) && UK_NUMBERING_PLAN.has(b))
    return outcome("agree", "same_numbering_plan");
  return outcome("disagree", "countries_differ");
}

const COUNTRY_PAIRS: [CheckName, SignalName, SignalName][] = [
  ["phone_country_matches_ip_country", "phone", "ip"],
  ["phone_country_matches_address_country", "phone", "address"],
  ["ip_country_matches_address_country", "ip", "address"],
  ["entity_country_matches_address_country", "entity", "address"],
  ["entity_country_matches_phone_country", "entity", "phone"],
  ["entity_country_matches_ip_country", "entity", "ip"],
  ["email_tld_country_matches_address_country", "email", "address"],
];

function emailEntityCheck(
  signals: Signals,
  name: "email_domain_resembles_entity_name" | "email_is_business_for_entity",
): { outcome: Outcome; fields: Record<string, FieldValue> } {
  const { email, entity } = signals;
  const fields: Record<string, FieldValue> = {};
  if (email)
    Object.assign(
      fields,
      name === "email_is_business_for_entity"
        ? { "email.free_provider": email.free_provider, "email.disposable": email.disposable }
        : { "email.domain": email.domain, "email.free_provider": email.free_provider },
    );
  if (entity)
    Object.assign(
      fields,
      name === "email_is_business_for_entity" ? { "entity.found": entity.found } : { "entity.name": entity.name },
    );
  if (!given(signals, ["email", "entity"])) return { outcome: outcome("not_applicable", "signal_not_given"), fields };
  if (!email!.valid) return { outcome: outcome("unknown", "email_invalid"), fields };
  if (name === "email_domain_resembles_entity_name") {
    // A free provider's domain is nobody's company name: the check is skipped (email_is_business_for_entity says it).
    if (email!.free_provider) return { outcome: outcome("not_applicable", "free_provider"), fields };
    if (!entity!.found || !entity!.name) return { outcome: outcome("unknown", "entity_not_found"), fields };
    return {
      outcome: domainResemblesName(email!.domain!, entity!.name)
        ? outcome("agree", "domain_matches_name")
        : outcome("disagree", "domain_unlike_name"),
      fields,
    };
  }
  if (!entity!.found) return { outcome: outcome("unknown", "entity_not_found"), fields };
  if (email!.disposable) return { outcome: outcome("disagree", "disposable_domain"), fields };
  return {
    outcome: email!.free_provider ? outcome("disagree", "free_provider") : outcome("agree", "business_domain"),
    fields,
  };
}

function postcodeCheck(address: Signals["address"]): { outcome: Outcome; fields: Record<string, FieldValue> } {
  if (!address) return { outcome: outcome("not_applicable", "signal_not_given"), fields: {} };
  const fields = {
    "address.postcode": address.postcode,
    "address.locality": address.locality,
    "address.locality_matches_postcode": address.locality_matches_postcode,
  };
  if (!address.postcode || !address.locality)
    return { outcome: outcome("not_applicable", "postcode_or_locality_missing"), fields };
  const matches = address.locality_matches_postcode;
  if (matches === null)
    return {
      outcome: outcome("unknown", address.postcode_found === false ? "postcode_not_found" : "postcode_not_covered"),
      fields,
    };
  return {
    outcome: matches ? outcome("agree", "postcode_serves_locality") : outcome("disagree", "postcode_elsewhere"),
    fields,
  };
}

/** Every named check over the signals, in CHECK_NAMES order. */
export function runChecks(signals: Signals): Check[] {
  const ip = signals.ip ? ipNotAnonymous(signals.ip) : outcome("not_applicable", "signal_not_given");
  const ipFields: Record<string, FieldValue> = signals.ip
    ? { "ip.anonymous": signals.ip.anonymous, "ip.tor": signals.ip.tor, "ip.hosting": signals.ip.hosting }
    : {};
  const ipAnonymous = ip.result === "disagree";
  const decided = new Map<CheckName, { outcome: Outcome; fields: Record<string, FieldValue> }>([
    ...COUNTRY_PAIRS.map(([name, a, b]) => [name, countryCheck(signals, a, b, ipAnonymous)] as const),
    ["email_domain_resembles_entity_name", emailEntityCheck(signals, "email_domain_resembles_entity_name")],
    ["email_is_business_for_entity", emailEntityCheck(signals, "email_is_business_for_entity")],
    ["address_postcode_matches_locality", postcodeCheck(signals.address)],
    ["ip_not_anonymous", { outcome: ip, fields: ipFields }],
    ["phone_line_not_virtual", lineCheck(signals.phone)],
  ]);
  return [...decided].map(([name, { outcome: o, fields }]) => ({
    name,
    result: o.result,
    weight: WEIGHTS[name],
    decided_by: fields,
    reason: o.reason,
  }));
}
