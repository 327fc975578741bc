/**
 * docs/offline.md's examples, tried as written by a new account and then by another one (the stand-ins and the shared
 * answers keep what the first try left behind): each answers what the page says, both times.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { installMountainViewZip } from "../address-samples";
import { anotherKey, bearer, call, createAccount, json, type TestAccount } from "../helpers";
import { deliveredAt } from "../webhook-receiver";

type Data = Record<string, any>;
const post = async (acct: TestAccount, path: string, body: unknown) =>
  call<Data>(path, json(body, { Authorization: `Bearer ${await anotherKey(acct)}` }));
const email = (acct: TestAccount, address: string, extra: Data = {}) =>
  post(acct, "/api/v1/email", { email: address, ...extra });
const shape = (d: Data, credits: unknown) => [d.data.deliverable, d.data.reason, credits];

beforeAll(installMountainViewZip);

describe.each([1, 2])("docs/offline.md, try %i", (round) => {
  it("acme.example, catchall, greylist, young, nullmx, nomail, implicit, dmarcfail, dnsfail", async () => {
    const acct = await createAccount({ pack: 20 });
    const alice = await email(acct, "alice@acme.example");
    expect(shape(alice.body, alice.body.meta.credits_used)).toEqual(["deliverable", null, 1]);
    const again = await email(acct, "alice@acme.example");
    expect([again.body.data.deliverable, again.body.meta.credits_used, again.body.meta.cache_hit]).toEqual([
      "deliverable",
      0,
      true,
    ]);
    const nobody = await email(acct, "nobody@acme.example");
    expect(shape(nobody.body, nobody.status)).toEqual(["undeliverable", "mailbox_not_found", 200]);
    expect(shape((await email(acct, "z@catchall.example")).body, 0)).toEqual(["risky", "catch_all", 0]);
    const grey = await email(acct, "x@greylist.example");
    expect(shape(grey.body, grey.body.meta.credits_used)).toEqual(["risky", "unverified", 0]);
    expect((await email(acct, "newbie@young.example")).body.data.risk_components).toHaveProperty("new_domain");
    const nullMx = await email(acct, "a@nullmx.example");
    expect(shape(nullMx.body, nullMx.body.meta.credits_used)).toEqual(["undeliverable", "null_mx", 0]);
    const noMx = await email(acct, "a@nomail.example");
    expect(shape(noMx.body, noMx.body.meta.credits_used)).toEqual(["undeliverable", "no_mx", 0]);
    expect((await email(acct, "sam@implicit.example")).body.data.deliverable).toBe("deliverable");
    const dmarc = await email(acct, "alice@dmarcfail.example");
    expect([dmarc.body.data.deliverable, dmarc.body.data.has_dmarc]).toEqual(["deliverable", null]);
    expect(dmarc.body.data.risk_components).not.toHaveProperty("no_dmarc");
    const dnsFail = await email(acct, "a@dnsfail.example");
    expect(shape(dnsFail.body, dnsFail.body.meta.credits_used)).toEqual(["risky", "unverified", 0]);
    const domain = await call("/api/v1/email/domain/dnsfail.example", bearer(await anotherKey(acct)));
    expect([domain.status, domain.body.error.code]).toEqual([500, "SERVER_ERROR"]);
  });

  it("gmail.com, mixedcase, the disposable and typo lists, mailstatus", async () => {
    const acct = await createAccount({ pack: 20 });
    const alias = await email(acct, "John.Smith+news@gmail.com");
    expect([alias.body.data.deliverable, alias.body.data.is_alias]).toEqual(["deliverable", true]);
    const short = await email(acct, "ab@gmail.com");
    expect(shape(short.body, short.body.meta.credits_used)).toEqual(["undeliverable", "invalid_username", 0]);
    expect((await email(acct, "Bob@mixedcase.example")).body.data.deliverable).toBe("deliverable");
    expect((await email(acct, "bob@mixedcase.example")).body.data.deliverable).toBe("undeliverable");
    expect((await email(acct, "a@mailinator.com")).body.data.reason).toBe("disposable");
    const typo = await email(acct, "a@gmial.com");
    expect([typo.body.data.reason, typo.body.data.did_you_mean]).toEqual(["typo_domain", "a@gmail.com"]);
    for (const local of ["full", "overquota"]) {
      const full = await email(acct, `${local}@mailstatus.example`);
      expect([...shape(full.body, full.body.meta.credits_used), full.body.data.risk_score], local).toEqual([
        "risky",
        "mailbox_full",
        1,
        50,
      ]);
    }
    const disabled = await email(acct, "disabled@mailstatus.example");
    expect(shape(disabled.body, disabled.body.meta.credits_used)).toEqual(["undeliverable", "mailbox_disabled", 0]);
    const blocked = await email(acct, "blocked@mailstatus.example");
    expect([...shape(blocked.body, blocked.body.meta.credits_used), blocked.body.data.smtp_reason]).toEqual([
      "risky",
      "unverified",
      0,
      "provider_unavailable",
    ]);
  });

  it("the provider rules' MX names", async () => {
    const acct = await createAccount({ pack: 20 });
    const yahoo = await email(acct, "x@yahoo-mx.example");
    expect([...shape(yahoo.body, yahoo.body.meta.credits_used), yahoo.body.data.risk_score]).toEqual([
      "risky",
      "catch_all",
      1,
      35,
    ]);
    for (const domain of ["yahoo-mx", "icloud-mx", "proton-mx"]) {
      const { body } = await email(acct, `x@${domain}.example`);
      expect([body.data.reason, body.data.sources.map((s: Data) => s.dataset)], domain).toEqual([
        "catch_all",
        expect.arrayContaining(["provider-rules"]),
      ]);
    }
    for (const domain of ["m365-mx", "outlook-mx", "yandex-mx"]) {
      expect((await email(acct, `alice@${domain}.example`)).body.data.deliverable, domain).toBe("deliverable");
      expect(shape((await email(acct, `x@${domain}.example`)).body, domain)).toEqual([
        "undeliverable",
        "mailbox_not_found",
        domain,
      ]);
    }
  });

  it("settles.example: a new address settles true after the second re-check", { timeout: 40_000 }, async () => {
    const acct = await createAccount({ pack: 5 });
    // "Any address not asked before": the stand-in greylists each address's first two RCPTs.
    const address = `x${round}-${crypto.randomUUID().slice(0, 8)}@settles.example`;
    const path = `/ok/offline-settles-${crypto.randomUUID()}`;
    const callback = { callback_url: `${env.RECEIVER_URL}${path}`, callback_secret: "offline-example-secret" };
    const first = await email(acct, address, callback);
    expect([first.body.data.deliverable, first.body.meta.settling, first.body.meta.credits_used]).toEqual([
      "risky",
      true,
      0,
    ]);
    const [delivery] = await deliveredAt(path, 1, 20_000);
    expect(JSON.parse(delivery!.body)).toMatchObject({ event: "email.settled", settled: true, attempt: 2 });
  });

  it("the phone partners, network: true", async () => {
    const acct = await createAccount({ pack: 20 });
    const phone = (number: string) => post(acct, "/api/v1/phone", { phone: number, network: true });
    const mobile = await phone("+16502530000");
    expect([mobile.body.data.line_type, mobile.body.data.carrier_source, mobile.body.meta.credits_used]).toEqual([
      "mobile",
      "network",
      2,
    ]);
    expect((await phone("+16502530200")).body.data.line_type).toBe("fixed_line");
    for (const tail of ["0600", "0404"])
      expect((await phone(`+1650253${tail}`)).body.data, tail).toMatchObject({
        network_status: "inactive",
        reason: "inactive",
      });
    const vonage = await phone("+16502530503");
    expect(vonage.body.data.sources.map((s: Data) => s.dataset)).toContain("vonage-number-insight");
    for (const tail of ["0500", "0408"]) {
      const { body } = await phone(`+1650253${tail}`);
      expect([body.data.reason, body.meta.credits_used], tail).toEqual(["partner_unavailable", 0]);
    }
    expect((await phone("+16502530429")).body.data.network_checked).toBe(true);
  });

  it("the delivery-point partners, delivery_point: true", async () => {
    const acct = await createAccount({ pack: 40 });
    const check = (line: string) =>
      post(acct, "/api/v1/address", {
        address: `${line}, Mountain View, CA 94043`,
        country: "US",
        delivery_point: true,
      });
    const amphitheatre = await check("1600 Amphitheatre Pkwy");
    expect([amphitheatre.body.data.deliverable, amphitheatre.body.meta.credits_used]).toEqual([true, 2]);
    expect(amphitheatre.body.data).toMatchObject({ verification: "verified", precision: "premise" });
    const nonexistent = await check("99999 Nonexistent Blvd");
    expect(nonexistent.body.data).toMatchObject({
      verification: "invalid",
      deliverable: false,
      reason: "no_delivery_point",
    });
    expect(nonexistent.body.meta.credits_used).toBe(0);
    // Outside the US and outside the address registers loaded: the partner's confirmation verifies it.
    const baker = await post(acct, "/api/v1/address", {
      address: "221B Baker Street, London NW1 6XE",
      country: "GB",
      delivery_point: true,
    });
    expect(baker.body.data).toMatchObject({ verification: "verified", precision: "premise", deliverable: true });
    expect(baker.body.meta.credits_used).toBe(2);
    expect((await check("1 Vacant Lot Rd")).body.data.delivery_point.vacant).toBe(true);
    expect((await check("1 Missing Unit Rd")).body.data.deliverable).toBeNull();
    expect((await check("1 Ignored Unit Rd")).body.data.deliverable).toBe(true);
    for (const line of ["1 500 Error St", "1 408 Slow St"])
      expect((await check(line)).body.data.reason, line).toBe("partner_unavailable");
    expect((await check("1 429 Busy St")).body.data.deliverable).toBe(true);
  });

  it("Demolished: an address monitor sees the delivery point go, run after run", async () => {
    const acct = await createAccount({ pack: 10 });
    const auth = { Authorization: `Bearer ${acct.key}` };
    const created = await call<Data>(
      "/api/v1/address/monitors",
      json(
        {
          name: "Demolished",
          addresses: [{ address: "1 Demolished Ave, Mountain View, CA 94043", country: "US" }],
          cadence: "weekly",
          delivery_point: true,
        },
        auth,
      ),
    );
    expect(created.status).toBe(201);
    const run = (query = "?refresh=true") =>
      call<Data>(`/api/v1/address/monitors/${created.body.data.monitor.id}/run${query}`, json({}, auth));
    const baseline = await run();
    expect(baseline.body.data.summary).toMatchObject({ checked: 1, new_baselines: 1, changed: 0, credits_used: 2 });
    // Asked to refresh, the second run asks the partner again rather than answering from the 7-day repeat.
    const second = await run();
    expect(second.body.data.summary).toMatchObject({ checked: 1, changed: 1, credits_used: 0 });
    expect(second.body.data.changes[0].changes).toContainEqual(
      expect.objectContaining({ field: "deliverable", from: true, to: false }),
    );
    expect(second.body.data.changes[0].changes).toContainEqual(
      expect.objectContaining({ field: "verification", from: "verified", to: "invalid" }),
    );
    // Not asked to refresh, a run within 7 days answers the last check again: free, nothing new to see.
    const repeat = await run("");
    expect(repeat.body.data.summary).toMatchObject({ checked: 1, changed: 0, credits_used: 0 });
  });
});
