/**
 * IP billing over HTTP (spec "Billing": five placing lookups per credit, `meta.ip_lookups_prepaid`; ASN and range
 * lookups 1 each) and the other ways in: the browser endpoint, the sandbox key and history.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { IpResult } from "../../../src/products/ip/result";
import { admin, anotherKey, bearer, call, createAccount, accountObject, json } from "../../helpers";
import { installIpSamples, placedIps, privateIp } from "../../ip-samples";

const lookup = (key: string, ip: string) =>
  call<IpResult>("/api/v1/ip", json({ ip }, { Authorization: `Bearer ${key}` }));

beforeAll(installIpSamples);

describe("IP billing", () => {
  it(
    "answers 20 concurrent placing lookups on a balance of 4 credits, charging exactly 4 and leaving 0 " + "prepaid",
    async () => {
      // Holds are in units: the credit one hold opens lends its other four units to the holds in flight beside it.
      const acct = await createAccount({ pack: 4 });
      // Five requests a second per key (spec "Limits"): five keys of the account share its prepaid units.
      const keys = [acct.key, ...(await Promise.all([1, 2, 3, 4].map(() => anotherKey(acct))))];
      const ips = placedIps(20);
      const answers = await Promise.all(ips.map((ip, i) => lookup(keys[i % keys.length]!, ip)));
      expect(answers.map((a) => a.status)).toEqual(ips.map(() => 200));
      const used = answers.map((a) => a.body.meta.credits_used as number);
      expect(used.reduce((a, b) => a + b, 0)).toBe(4);
      expect(used.filter((n) => n === 1)).toHaveLength(4);
      expect(Math.min(...answers.map((a) => a.body.meta.ip_lookups_prepaid as number))).toBe(0);
      expect(await accountObject(acct.accountId).snapshot()).toMatchObject({
        pack_credits: 0,
        reserved: 0,
        available: 0,
      });
      // A key that took no part in the burst, so its 5-a-second limit cannot answer before the balance does.
      const rested = await anotherKey(acct);
      const next = await lookup(rested, privateIp());
      expect([
        next.body.meta.credits_used,
        next.body.meta.ip_lookups_prepaid,
        next.body.meta.credits_remaining,
      ]).toEqual([0, 0, 0]);
      const refused = await lookup(rested, placedIps(1)[0]!);
      expect([refused.status, refused.body.error?.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    },
  );

  it("reports 1,0,0,0,0,1 and the prepaid count on sequential lookups; free answers use no unit", async () => {
    const acct = await createAccount({ pack: 3 });
    const keys = [acct.key, await anotherKey(acct), await anotherKey(acct)];
    const seen: [unknown, unknown][] = [];
    const values = [...placedIps(5), privateIp(), "nonsense", "192.0.2.1", ...placedIps(1)];
    for (const [i, ip] of values.entries()) {
      const { body } = await lookup(keys[i % keys.length]!, ip);
      seen.push([body.meta.credits_used, body.meta.ip_lookups_prepaid]);
    }
    expect(seen).toEqual([
      [1, 4],
      [0, 3],
      [0, 2],
      [0, 1],
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 0],
      [1, 4],
    ]);
  });

  it("bills an ASN lookup 1 credit when found, a repeat nothing; 404 ASN_NOT_FOUND free", async () => {
    const acct = await createAccount({ pack: 5 });
    const found = await call<Record<string, unknown>>("/api/v1/ip/asn/AS19281", bearer(acct.key));
    expect(found.status).toBe(200);
    expect(found.body.data).toMatchObject({ asn: 19281, name: "Quad9", country: "US", hosting: false });
    expect(found.body.data.prefixes).toEqual(expect.arrayContaining(["9.9.9.0/24", "149.112.112.0/24"]));
    expect(found.body.data.prefixes6).toEqual(expect.arrayContaining(["2620:fe::/48"]));
    expect(found.body.data.num_ipv4).toBeGreaterThanOrEqual(512);
    expect(found.body.meta).toMatchObject({ credits_used: 1, credits_remaining: 4, cache_hit: false });
    const repeat = await call("/api/v1/ip/asn/19281", bearer(acct.key));
    expect(repeat.body.meta).toMatchObject({ credits_used: 0, cache_hit: true, credits_remaining: 4 });
    const missing = await call("/api/v1/ip/asn/4199999999", bearer(acct.key));
    expect([missing.status, missing.body.error.code]).toEqual([404, "ASN_NOT_FOUND"]);
    const bad = await call("/api/v1/ip/asn/quad9", bearer(acct.key));
    expect([bad.status, bad.body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(4);
  });

  it("cuts a range at every dataset boundary, 1 credit when any block is found, free when none", async () => {
    const acct = await createAccount({ pack: 5 });
    const range = await call<{ blocks: Record<string, unknown>[] } & Record<string, unknown>>(
      "/api/v1/ip/range?cidr=8.8.8.0/23",
      bearer(acct.key),
    );
    expect(range.status).toBe(200);
    expect(range.body.data).toMatchObject({
      cidr: "8.8.8.0/23",
      first: "8.8.8.0",
      last: "8.8.9.255",
      size: 512,
      truncated: false,
    });
    expect(range.body.data.blocks).toEqual([
      { start: "8.8.8.0", end: "8.8.8.255", asn: 15169, as_name: "Google LLC", country: "US" },
      { start: "8.8.9.0", end: "8.8.9.255", asn: null, as_name: null, country: "US" },
    ]);
    expect(range.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    const wide = await call<{ size: unknown }>("/api/v1/ip/range?cidr=2001:4860::/32", bearer(acct.key));
    expect(wide.body.data.size).toBe("79228162514264337593543950336");
    const empty = await call<{ blocks: unknown[] }>("/api/v1/ip/range?cidr=203.0.113.0/24", bearer(acct.key));
    expect([empty.status, empty.body.data.blocks, empty.body.meta.credits_used]).toEqual([200, [], 0]);
    const bad = await call("/api/v1/ip/range?cidr=8.8.8.0/33", bearer(await anotherKey(acct)));
    expect([bad.status, bad.body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
  });

  it("answers the browser endpoint without meta, for the given address or the visitor's own", async () => {
    const acct = await createAccount({ pack: 5 });
    const { key } = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      user_id: acct.userId,
      allowed_domains: ["shop.example"],
    });
    const browser = (body: Record<string, unknown>) =>
      call<IpResult>(
        "/api/v1/ip/public",
        json({ key, ...body }, { Origin: "https://shop.example", "CF-Connecting-IP": "193.0.0.1" }),
      );
    const given = await browser({ ip: "5.9.0.1" });
    expect([given.status, given.body.data.asn, "meta" in given.body]).toEqual([200, 24940, false]);
    const own = await browser({});
    expect([own.status, own.body.data.ip, own.body.data.country]).toEqual([200, "193.0.0.1", "NL"]);
    const foreign = await call("/api/v1/ip/public", json({ key, ip: "9.9.9.9" }, { Origin: "https://evil.example" }));
    expect([foreign.status, foreign.body.error.code]).toEqual([403, "ORIGIN_NOT_ALLOWED"]);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(4);
  });

  it("lets the sandbox key look up the test values only", async () => {
    await admin("PUT", "/sandbox", { enabled: true });
    const sandbox = (path: string) =>
      call<IpResult>(path, bearer("sk_test_public_sandbox", { "CF-Connecting-IP": "203.0.113.77" }));
    const sample = await sandbox("/api/v1/ip/192.0.2.3");
    expect([sample.status, sample.body.data.tor, sample.body.meta.credits_used]).toEqual([200, true, 0]);
    expect((await sandbox("/api/v1/ip/asn/64496")).status).toBe(200);
    const other = await sandbox("/api/v1/ip/8.8.8.8");
    expect([other.status, other.body.error.code]).toEqual([403, "SANDBOX_VALUE_NOT_ALLOWED"]);
    const me = await sandbox("/api/v1/ip/me");
    expect([me.status, me.body.error.code]).toEqual([403, "SANDBOX_ENDPOINT_NOT_ALLOWED"]);
  });

  it("keeps every answer but test values in history, by risk level", async () => {
    const acct = await createAccount({ pack: 5 });
    const [placed] = placedIps(1);
    await call(
      "/api/v1/ip/batch",
      json({ ips: [placed, "10.1.1.1", "192.0.2.1", "nope"] }, { Authorization: `Bearer ${acct.key}` }),
    );
    const history = await call<{ lookups: Record<string, unknown>[] }>("/api/v1/ip/history", bearer(acct.key));
    expect(history.status).toBe(200);
    const rows = history.body.data.lookups.map((r) => [r.ip, r.risk_level, r.reason, r.credits_used]).sort();
    expect(rows).toEqual(
      [
        ["10.1.1.1", "medium", "reserved", 0],
        [placed, "low", null, 1],
        ["nope", "high", "invalid_ip", 0],
      ].sort(),
    );
  });
});
