/**
 * Every named check of products.md "Consistency" in its agree, disagree, unknown and not-applicable states, the
 * anonymous-IP rule, and the score, level and risk formulas (docs/consistency.md), on the answer builder itself.
 */
import { describe, expect, it } from "vitest";
import { consistencyAnswer } from "../../../src/products/consistency/answer";
import { WEIGHTS } from "../../../src/products/consistency/checks";
import { domainResemblesName } from "../../../src/products/consistency/names";
import { CHECK_NAMES, type CheckName, type Signals } from "../../../src/products/consistency/result";
import { tldCountry } from "../../../src/products/consistency/tld";

const EMAIL = {
  email: "jane@samplewidgets.co.uk",
  valid: true,
  domain: "samplewidgets.co.uk",
  tld_country: "GB",
  free_provider: false,
  disposable: false,
};
const PHONE = {
  phone: "+447400123456",
  valid: true,
  e164: "+447400123456",
  country: "GB",
  line_type: "mobile",
  line_type_source: "numbering_plan" as const,
};
const IP = {
  ip: "81.130.1.1",
  valid: true,
  reserved: false,
  placed: true,
  country: "GB",
  anonymous: false,
  tor: false,
  hosting: false,
};
const ADDRESS = {
  country: "GB",
  country_supported: true,
  postcode: "SW1A 2AA",
  locality: "London",
  postcode_found: true,
  locality_matches_postcode: true,
};
/** The phone as a network partner reported it (`network: true`). */
const LIVE = { ...PHONE, line_type_source: "network" as const };
const ENTITY = { identifier: "09900001", found: true, name: "SAMPLE WIDGETS LIMITED", country: "GB" };
const NONE: Signals = { email: null, phone: null, ip: null, address: null, entity: null };
const ALL: Signals = { email: EMAIL, phone: PHONE, ip: IP, address: ADDRESS, entity: ENTITY };

const check = (signals: Partial<Signals>, name: CheckName) => {
  const found = consistencyAnswer({ ...NONE, ...signals }, []).checks.find((c) => c.name === name)!;
  return `${found.result}:${found.reason}`;
};

type Row = [CheckName, Partial<Signals>, string];

/** For each check: one row per state, with the signals that put it there. */
const TABLE: Row[] = [
  ["phone_country_matches_ip_country", { phone: PHONE, ip: IP }, "agree:countries_match"],
  ["phone_country_matches_ip_country", { phone: PHONE, ip: { ...IP, country: "FR" } }, "disagree:countries_differ"],
  [
    "phone_country_matches_ip_country",
    { phone: { ...PHONE, valid: false, e164: null, country: null }, ip: IP },
    "unknown:phone_invalid",
  ],
  [
    "phone_country_matches_ip_country",
    { phone: PHONE, ip: { ...IP, reserved: true, placed: false, country: null } },
    "unknown:ip_reserved",
  ],
  [
    "phone_country_matches_ip_country",
    { phone: PHONE, ip: { ...IP, placed: false, country: null } },
    "unknown:ip_not_placed",
  ],
  ["phone_country_matches_ip_country", { phone: PHONE, address: ADDRESS }, "not_applicable:signal_not_given"],
  ["phone_country_matches_address_country", { phone: PHONE, address: ADDRESS }, "agree:countries_match"],
  [
    "phone_country_matches_address_country",
    { phone: { ...PHONE, country: "IE" }, address: ADDRESS },
    "disagree:countries_differ",
  ],
  [
    "phone_country_matches_address_country",
    { phone: PHONE, address: { ...ADDRESS, country: "XX", country_supported: false } },
    "unknown:address_country_unsupported",
  ],
  ["phone_country_matches_address_country", { phone: PHONE, ip: IP }, "not_applicable:signal_not_given"],
  ["ip_country_matches_address_country", { ip: IP, address: ADDRESS }, "agree:countries_match"],
  [
    "ip_country_matches_address_country",
    { ip: { ...IP, country: "US" }, address: ADDRESS },
    "disagree:countries_differ",
  ],
  [
    "ip_country_matches_address_country",
    { ip: { ...IP, valid: false, placed: false, country: null }, address: ADDRESS },
    "unknown:ip_invalid",
  ],
  ["ip_country_matches_address_country", { ip: IP, phone: PHONE }, "not_applicable:signal_not_given"],
  ["entity_country_matches_address_country", { entity: ENTITY, address: ADDRESS }, "agree:countries_match"],
  [
    "entity_country_matches_address_country",
    { entity: ENTITY, address: { ...ADDRESS, country: "FR" } },
    "disagree:countries_differ",
  ],
  [
    "entity_country_matches_address_country",
    { entity: { ...ENTITY, found: false, name: null, country: null }, address: ADDRESS },
    "unknown:entity_not_found",
  ],
  ["entity_country_matches_address_country", { entity: ENTITY, phone: PHONE }, "not_applicable:signal_not_given"],
  ["entity_country_matches_phone_country", { entity: ENTITY, phone: PHONE }, "agree:countries_match"],
  [
    "entity_country_matches_phone_country",
    { entity: ENTITY, phone: { ...PHONE, country: "US" } },
    "disagree:countries_differ",
  ],
  [
    "entity_country_matches_phone_country",
    { entity: { ...ENTITY, country: null }, phone: PHONE },
    "unknown:entity_country_unknown",
  ],
  ["entity_country_matches_phone_country", { entity: ENTITY, ip: IP }, "not_applicable:signal_not_given"],
  ["entity_country_matches_ip_country", { entity: ENTITY, ip: IP }, "agree:countries_match"],
  ["entity_country_matches_ip_country", { entity: ENTITY, ip: { ...IP, country: "NL" } }, "disagree:countries_differ"],
  [
    "entity_country_matches_ip_country",
    { entity: ENTITY, ip: { ...IP, anonymous: null, tor: null, placed: false, country: null } },
    "unknown:ip_not_placed",
  ],
  ["entity_country_matches_ip_country", { entity: ENTITY, address: ADDRESS }, "not_applicable:signal_not_given"],
  ["email_tld_country_matches_address_country", { email: EMAIL, address: ADDRESS }, "agree:countries_match"],
  [
    "email_tld_country_matches_address_country",
    { email: { ...EMAIL, domain: "widgets.fr", tld_country: "FR" }, address: ADDRESS },
    "disagree:countries_differ",
  ],
  [
    "email_tld_country_matches_address_country",
    { email: { ...EMAIL, valid: false, domain: null, tld_country: null }, address: ADDRESS },
    "unknown:email_invalid",
  ],
  [
    "email_tld_country_matches_address_country",
    { email: { ...EMAIL, domain: "widgets.io", tld_country: null }, address: ADDRESS },
    "not_applicable:no_country_tld",
  ],
  ["email_tld_country_matches_address_country", { email: EMAIL, phone: PHONE }, "not_applicable:signal_not_given"],
  ["email_domain_resembles_entity_name", { email: EMAIL, entity: ENTITY }, "agree:domain_matches_name"],
  [
    "email_domain_resembles_entity_name",
    { email: { ...EMAIL, domain: "acme.co.uk" }, entity: ENTITY },
    "disagree:domain_unlike_name",
  ],
  [
    "email_domain_resembles_entity_name",
    { email: EMAIL, entity: { ...ENTITY, found: false, name: null, country: null } },
    "unknown:entity_not_found",
  ],
  [
    "email_domain_resembles_entity_name",
    { email: { ...EMAIL, domain: "gmail.com", tld_country: null, free_provider: true }, entity: ENTITY },
    "not_applicable:free_provider",
  ],
  ["email_domain_resembles_entity_name", { email: EMAIL, address: ADDRESS }, "not_applicable:signal_not_given"],
  ["email_is_business_for_entity", { email: EMAIL, entity: ENTITY }, "agree:business_domain"],
  [
    "email_is_business_for_entity",
    { email: { ...EMAIL, free_provider: true }, entity: ENTITY },
    "disagree:free_provider",
  ],
  [
    "email_is_business_for_entity",
    { email: { ...EMAIL, disposable: true }, entity: ENTITY },
    "disagree:disposable_domain",
  ],
  [
    "email_is_business_for_entity",
    { email: { ...EMAIL, valid: false, domain: null, tld_country: null }, entity: ENTITY },
    "unknown:email_invalid",
  ],
  ["email_is_business_for_entity", { email: EMAIL, phone: PHONE }, "not_applicable:signal_not_given"],
  ["address_postcode_matches_locality", { address: ADDRESS }, "agree:postcode_serves_locality"],
  [
    "address_postcode_matches_locality",
    { address: { ...ADDRESS, locality: "Leeds", locality_matches_postcode: false } },
    "disagree:postcode_elsewhere",
  ],
  [
    "address_postcode_matches_locality",
    { address: { ...ADDRESS, postcode_found: false, locality_matches_postcode: null } },
    "unknown:postcode_not_found",
  ],
  [
    "address_postcode_matches_locality",
    {
      address: {
        ...ADDRESS,
        country: "IT",
        postcode: "00184",
        locality: "Roma",
        postcode_found: null,
        locality_matches_postcode: null,
      },
    },
    "unknown:postcode_not_covered",
  ],
  [
    "address_postcode_matches_locality",
    { address: { ...ADDRESS, postcode: null, locality_matches_postcode: null } },
    "not_applicable:postcode_or_locality_missing",
  ],
  ["address_postcode_matches_locality", { phone: PHONE, ip: IP }, "not_applicable:signal_not_given"],
  ["ip_not_anonymous", { ip: IP }, "agree:not_anonymous"],
  ["ip_not_anonymous", { ip: { ...IP, hosting: null } }, "agree:not_anonymous"],
  ["ip_not_anonymous", { ip: { ...IP, tor: true, anonymous: true } }, "disagree:tor_exit"],
  ["ip_not_anonymous", { ip: { ...IP, anonymous: true } }, "disagree:anonymous_proxy"],
  ["ip_not_anonymous", { ip: { ...IP, hosting: true } }, "disagree:hosting_network"],
  ["ip_not_anonymous", { ip: { ...IP, anonymous: null, tor: null, hosting: null } }, "unknown:anonymity_unknown"],
  [
    "ip_not_anonymous",
    { ip: { ...IP, reserved: true, placed: false, country: null, anonymous: null, tor: null, hosting: null } },
    "unknown:ip_reserved",
  ],
  ["ip_not_anonymous", { phone: PHONE, address: ADDRESS }, "not_applicable:signal_not_given"],
  ["phone_line_not_virtual", { phone: LIVE, ip: IP }, "agree:subscriber_line"],
  ["phone_line_not_virtual", { phone: { ...LIVE, line_type: "fixed_line" } }, "agree:subscriber_line"],
  ["phone_line_not_virtual", { phone: { ...LIVE, line_type: "voip" } }, "disagree:voip_line"],
  ["phone_line_not_virtual", { phone: { ...LIVE, line_type: "premium_rate" } }, "disagree:not_a_subscriber_line"],
  ["phone_line_not_virtual", { phone: { ...LIVE, line_type: "unknown" } }, "unknown:line_type_unknown"],
  [
    "phone_line_not_virtual",
    { phone: { ...PHONE, valid: false, e164: null, country: null, line_type: "unknown" } },
    "unknown:phone_invalid",
  ],
  // The plan's line type (the range's allocation) never decides it, even a VoIP range.
  ["phone_line_not_virtual", { phone: { ...PHONE, line_type: "voip" } }, "not_applicable:line_type_not_checked"],
  ["phone_line_not_virtual", { ip: IP, address: ADDRESS }, "not_applicable:signal_not_given"],
];

describe("checks", () => {
  it("covers every named check in all four states", () => {
    for (const name of CHECK_NAMES) {
      const states = new Set(TABLE.filter(([n]) => n === name).map(([, , expected]) => expected.split(":")[0]));
      expect([name, [...states].sort()]).toEqual([name, ["agree", "disagree", "not_applicable", "unknown"]]);
    }
  });

  it.each(TABLE)("%s with %j -> %s", (name, signals, expected) => {
    expect(check(signals, name)).toBe(expected);
  });

  it("names the fields that decided a check with their values in `signals`", () => {
    const data = consistencyAnswer({ ...NONE, phone: PHONE, ip: { ...IP, country: "FR" } }, []);
    expect(data.checks[0]).toEqual({
      name: "phone_country_matches_ip_country",
      result: "disagree",
      weight: 2,
      decided_by: { "phone.country": "GB", "ip.country": "FR" },
      reason: "countries_differ",
    });
    expect(data.checks.map((c) => c.name)).toEqual(CHECK_NAMES);
  });
});

describe("the UK numbering-plan family", () => {
  const GUERNSEY = { ...PHONE, phone: "+447911123456", e164: "+447911123456", country: "GG" };

  it("agrees a Guernsey number with a British IP and address, both countries in decided_by", () => {
    const data = consistencyAnswer({ ...NONE, phone: GUERNSEY, ip: IP, address: ADDRESS }, []);
    const byName = Object.fromEntries(data.checks.map((c) => [c.name, c]));
    expect(byName.phone_country_matches_ip_country).toMatchObject({
      result: "agree",
      reason: "same_numbering_plan",
      decided_by: { "phone.country": "GG", "ip.country": "GB" },
    });
    expect(byName.phone_country_matches_address_country).toMatchObject({
      result: "agree",
      reason: "same_numbering_plan",
      decided_by: { "phone.country": "GG", "address.country": "GB" },
    });
    expect(data.disagreements).toEqual([]);
    expect(data).toMatchObject({ score: 100, level: "consistent" });
  });

  it("holds for JE and IM and a register in GB, not for a check without a phone nor outside the family", () => {
    for (const country of ["JE", "IM"])
      expect(check({ phone: { ...PHONE, country }, entity: ENTITY }, "entity_country_matches_phone_country")).toBe(
        "agree:same_numbering_plan",
      );
    expect(check({ ip: { ...IP, country: "JE" }, address: ADDRESS }, "ip_country_matches_address_country")).toBe(
      "disagree:countries_differ",
    );
    expect(check({ phone: { ...PHONE, country: "IE" }, ip: IP }, "phone_country_matches_ip_country")).toBe(
      "disagree:countries_differ",
    );
  });
});

describe("the anonymous-IP rule", () => {
  it(
    "turns every IP-country check unknown (ip_anonymous) when ip_not_anonymous disagrees, whatever the " + "countries",
    () => {
      const data = consistencyAnswer({ ...ALL, ip: { ...IP, country: "DE", hosting: true } }, []);
      const ipCountry = data.checks.filter((c) => c.name.includes("ip_country"));
      expect(ipCountry.map((c) => [c.name, c.result, c.reason])).toEqual([
        ["phone_country_matches_ip_country", "unknown", "ip_anonymous"],
        ["ip_country_matches_address_country", "unknown", "ip_anonymous"],
        ["entity_country_matches_ip_country", "unknown", "ip_anonymous"],
      ]);
      expect(data.disagreements).toEqual(["ip_not_anonymous"]);
    },
  );

  it("leaves them decided when the IP's anonymity is unknown", () => {
    expect(
      check(
        { phone: PHONE, ip: { ...IP, country: "DE", anonymous: null, tor: null, hosting: null } },
        "phone_country_matches_ip_country",
      ),
    ).toBe("disagree:countries_differ");
  });
});

describe("score, level and risk", () => {
  it("scores round(100 * agreeing weight / decided weight), with its level and the disagreements' risk points", () => {
    const data = consistencyAnswer({ ...NONE, phone: PHONE, ip: { ...IP, country: "FR" }, address: ADDRESS }, []);
    // agree: phone~address 3, postcode 2, ip_not_anonymous 3; disagree: phone~ip 2, ip~address 2.
    expect(data.agreements).toEqual([
      "phone_country_matches_address_country",
      "address_postcode_matches_locality",
      "ip_not_anonymous",
    ]);
    expect(data.disagreements).toEqual(["phone_country_matches_ip_country", "ip_country_matches_address_country"]);
    expect(data).toMatchObject({
      score: Math.round((100 * 8) / 12),
      level: "mixed",
      risk_score: 40,
      risk_level: "medium",
      risk_components: { phone_country_matches_ip_country: 20, ip_country_matches_address_country: 20 },
    });
    const recomputed = (agree: number, all: number) => Math.round((100 * agree) / all);
    const sum = (result: string) =>
      data.checks.filter((c) => c.result === result).reduce((n, c) => n + WEIGHTS[c.name], 0);
    expect(data.score).toBe(recomputed(sum("agree"), sum("agree") + sum("disagree")));
  });

  it("has null score and level when nothing was decided, and levels at 80 and 50", () => {
    expect(
      consistencyAnswer({ ...NONE, phone: PHONE, entity: { ...ENTITY, found: false, name: null, country: null } }, []),
    ).toMatchObject({ score: null, level: null, risk_score: 0, risk_level: "low" });
    expect(consistencyAnswer({ ...NONE, phone: PHONE, address: ADDRESS }, []).level).toBe("consistent");
    expect(consistencyAnswer({ ...NONE, phone: PHONE, address: { ...ADDRESS, country: "FR" } }, [])).toMatchObject({
      score: 40,
      level: "inconsistent",
    });
  });

  it("cites each source once", () => {
    const source = { dataset: "ip-country", version: "1", coverage: "full" as const };
    const asn = { dataset: "ip-asn", version: "1", coverage: "sample" as const };
    expect(consistencyAnswer(ALL, [source, { ...source }, asn]).sources).toEqual([source, asn]);
  });
});

describe("email TLD country and name resemblance", () => {
  it.each([
    ["samplewidgets.co.uk", "GB"],
    ["example.com.au", "AU"],
    ["beispiel.de", "DE"],
    ["startup.io", null],
    ["brand.co", null],
    ["creator.tv", null],
    ["agency.ai", null],
    ["example.com", null],
    ["example.eu", null],
  ])("%s -> %s", (domain, country) => expect(tldCountry(domain)).toBe(country));

  it.each([
    ["samplewidgets.co.uk", "SAMPLE WIDGETS LIMITED", true],
    ["widgets.com", "SAMPLE WIDGETS LIMITED", true],
    ["sw.co.uk", "SAMPLE WIDGETS LTD", true],
    ["sample.de", "Sample Widgets GmbH", true],
    ["acme.co.uk", "SAMPLE WIDGETS LIMITED", false],
    ["ltd.co.uk", "SAMPLE WIDGETS LIMITED", false],
  ])("%s resembles %s: %s", (domain, name, expected) => expect(domainResemblesName(domain, name)).toBe(expected));
});
