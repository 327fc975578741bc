/**
 * The worked examples of docs/consistency.md, end to end over HTTP against the shipped samples: each case's checks,
 * score, level and bill, and the email signal answered without any SMTP session.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ConsistencyResult } from "../../../src/products/consistency/result";
import { call, createAccount, json, mailStats, rcptCount } from "../../helpers";
import { hostingIpAbroad, installConsistencySamples, TOR_EXIT, ukCompany, ukIp } from "../../consistency-samples";

beforeAll(installConsistencySamples);

const consistency = (key: string, body: unknown) =>
  call<ConsistencyResult>("/api/v1/consistency", json(body, { Authorization: `Bearer ${key}` }));

const A = "agree:countries_match";
const IP_ANON = "unknown:ip_anonymous";
const NOT_GIVEN = "not_applicable:signal_not_given";
/** The checks a UK company's email, phone, address and register entry settle, whatever the IP. */
const COMPANY = {
  phone_country_matches_address_country: A,
  entity_country_matches_address_country: A,
  entity_country_matches_phone_country: A,
  email_tld_country_matches_address_country: A,
  email_domain_resembles_entity_name: "agree:domain_matches_name",
  email_is_business_for_entity: "agree:business_domain",
  address_postcode_matches_locality: "agree:postcode_serves_locality",
  // Without `network: true` the line type is the plan's: never decided (docs/consistency.md, "The live line type").
  phone_line_not_virtual: "not_applicable:line_type_not_checked",
};

const CASES = [
  {
    label: "a UK company with a .co.uk domain, a UK mobile, a London address and a UK IP",
    body: () => ukCompany(ukIp()),
    checks: {
      ...COMPANY,
      phone_country_matches_ip_country: A,
      ip_country_matches_address_country: A,
      entity_country_matches_ip_country: A,
      ip_not_anonymous: "agree:not_anonymous",
    },
    score: 100,
    level: "consistent",
    risk: 0,
  },
  {
    label: "the same from a hosting network abroad (Hetzner, DE): the IP's country is no evidence",
    body: () => ukCompany(hostingIpAbroad()),
    checks: {
      ...COMPANY,
      phone_country_matches_ip_country: IP_ANON,
      ip_country_matches_address_country: IP_ANON,
      entity_country_matches_ip_country: IP_ANON,
      ip_not_anonymous: "disagree:hosting_network",
    },
    score: 84, // 16 / (16 + 3)
    level: "consistent",
    risk: 30,
  },
  {
    label: "the same from a Tor exit",
    body: () => ukCompany(TOR_EXIT),
    checks: {
      ...COMPANY,
      phone_country_matches_ip_country: IP_ANON,
      ip_country_matches_address_country: IP_ANON,
      entity_country_matches_ip_country: IP_ANON,
      ip_not_anonymous: "disagree:tor_exit",
    },
    score: 84,
    level: "consistent",
    risk: 30,
  },
  {
    label: "a free-mail address for the company (no IP)",
    body: () => ({ ...ukCompany(), email: `jane.doe.${crypto.randomUUID().slice(0, 8)}@gmail.com` }),
    checks: {
      ...COMPANY,
      email_tld_country_matches_address_country: "not_applicable:no_country_tld",
      email_domain_resembles_entity_name: "not_applicable:free_provider",
      email_is_business_for_entity: "disagree:free_provider",
      phone_country_matches_ip_country: NOT_GIVEN,
      ip_country_matches_address_country: NOT_GIVEN,
      entity_country_matches_ip_country: NOT_GIVEN,
      ip_not_anonymous: NOT_GIVEN,
    },
    score: 77, // 10 / (10 + 3)
    level: "mixed",
    risk: 30,
  },
];

describe("worked examples (docs/consistency.md)", () => {
  it.each(CASES)("$label", async ({ body, checks, score, level, risk }) => {
    const acct = await createAccount({ pack: 5 });
    const res = await consistency(acct.key, body());
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(Object.fromEntries(data.checks.map((c) => [c.name, `${c.result}:${c.reason}`]))).toEqual(checks);
    expect(data).toMatchObject({ score, level, risk_score: risk });
    expect(res.body.meta).toMatchObject({ credits_used: 1, credits_remaining: 4, cache_hit: false });
  });

  it("reads the email from DNS and the lists only: no SMTP session is opened for it", async () => {
    const acct = await createAccount({ pack: 5 });
    const email = `nobody.${crypto.randomUUID().slice(0, 8)}@gmail.com`;
    const res = await consistency(acct.key, { email, phone: "+447400123456" });
    expect(res.body.data.signals.email).toEqual({
      email,
      valid: true,
      domain: "gmail.com",
      tld_country: null,
      free_provider: true,
      disposable: false,
    });
    expect(rcptCount(await mailStats(), email)).toBe(0);
  });
});
