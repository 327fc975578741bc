import { describe, expect, it } from "vitest";
import { registeredProducts } from "../../src/products/registry";
import { admin, anotherKey, bearer, call, createAccount, accountObject, json } from "../helpers";

/**
 * Smaller findings of the attack on the local stack (docs/api-decisions.md, "Request bodies"; docs/email-policy.md,
 * "Browser answers"): each refused as the spec's Errors table says, free.
 */
const balance = async (accountId: string) => (await accountObject(accountId).snapshot()).pack_credits;

describe("browser answers carry the policy's action only", () => {
  it("answers /email/public, /phone/public and /address/public with policy {action}, never rules_hit", async () => {
    const acct = await createAccount({ pack: 10 });
    const auth = { Authorization: `Bearer ${acct.key}` };
    await call(
      "/api/v1/email/policy",
      json({ role: "review", blocked_domains: ["secret-competitor.example"] }, auth, "PUT"),
    );
    await call("/api/v1/phone/policy", json({ reasons: { invalid_number: "block" } }, auth, "PUT"));
    await call("/api/v1/address/policy", json({ po_box: "review" }, auth, "PUT"));
    const pk = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      user_id: acct.userId,
      allowed_domains: ["shop.example"],
    });
    const cases: [string, Record<string, unknown>, string][] = [
      ["/api/v1/email/public", { email: "role@service.test" }, "review"],
      ["/api/v1/phone/public", { phone: "not a number" }, "block"],
      ["/api/v1/address/public", { address: "po-box", country: "ZZ" }, "review"],
    ];
    for (const [path, body, action] of cases) {
      const { status, body: answer } = await call<{ policy: unknown }>(
        path,
        json({ key: pk.key, ...body }, { Origin: "https://shop.example", "CF-Connecting-IP": "192.0.2.93" }),
      );
      expect([path, status, answer.data.policy]).toEqual([path, 200, { action }]);
      expect(JSON.stringify(answer), path).not.toContain("rules_hit");
    }
  });
});

describe("validation the attack found missing", () => {
  it(
    "refuses an empty policy {} (and one whose rules are all empty) with 422 for every product with a policy, " +
      "storing nothing",
    async () => {
      const acct = await createAccount();
      const products = registeredProducts().filter((p) => p.policy);
      expect(products.length).toBeGreaterThan(0);
      for (const product of products) {
        // A key per product: three calls each stay under the key's 5 a second.
        const key = await anotherKey(acct);
        for (const rules of [
          {},
          { [Object.keys((product.policy!.rules as unknown as { shape: Record<string, unknown> }).shape)[0]!]: {} },
        ]) {
          const { status, body } = await call(
            `/api/v1/${product.name}/policy`,
            json(rules, { Authorization: `Bearer ${key}` }, "PUT"),
          );
          expect([product.name, JSON.stringify(rules), status, body.error.code]).toEqual([
            product.name,
            JSON.stringify(rules),
            422,
            "VALIDATION_FAILED",
          ]);
        }
        const { body } = await call<{ policy: unknown }>(`/api/v1/${product.name}/policy`, bearer(key));
        expect(body.data.policy).toBeNull();
      }
    },
  );

  it(
    "answers country=XX (no ISO 3166-1 country) on the address listings with 422 keyed country, not 501, " + "free",
    async () => {
      const acct = await createAccount({ pack: 5 });
      for (const path of [
        "/api/v1/address/postcode/75001?country=XX",
        "/api/v1/address/streets?country=XX&postcode=75001",
        "/api/v1/address/postcode/75001?country=Q1",
      ]) {
        const { status, body } = await call(path, bearer(acct.key));
        expect([path, status, body.error.code, Object.keys(body.error.errors ?? {})]).toEqual([
          path,
          422,
          "VALIDATION_FAILED",
          ["country"],
        ]);
      }
      expect(await balance(acct.accountId)).toBe(5);
    },
  );

  it(
    "refuses /ip/range?cidr= with a prefix length written with a leading zero (422), as it refuses octets with " +
      "one",
    async () => {
      const acct = await createAccount({ pack: 5 });
      for (const cidr of ["8.8.8.0/08", "8.8.8.0/024", "2001:db8::/032", "8.8.8.0/+8", "8.8.8.0/ 8"]) {
        const { status, body } = await call(`/api/v1/ip/range?cidr=${encodeURIComponent(cidr)}`, bearer(acct.key));
        expect([cidr, status, body.error.code, Object.keys(body.error.errors ?? {})]).toEqual([
          cidr,
          422,
          "VALIDATION_FAILED",
          ["cidr"],
        ]);
      }
      expect(await balance(acct.accountId)).toBe(5);
    },
  );

  it(
    "refuses a body that is not UTF-8 with 422 keyed body, on a lookup, a browser endpoint and an inbound webhook, " +
      "free",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const { feedback_key } = await admin<{ feedback_key: string }>(
        "POST",
        `/accounts/${acct.accountId}/feedback-key`,
      );
      const encode = (text: string) => new TextEncoder().encode(text);
      const invalid: [string, number[]][] = [
        ["a lone continuation byte", [0x80]],
        ["0xff", [0xff]],
        ["an overlong slash", [0xc0, 0xaf]],
        ["a UTF-16 surrogate", [0xed, 0xa0, 0x80]],
        ["a sequence cut short", [0xe2, 0x82]],
      ];
      const targets = ["/api/v1/email", "/api/v1/email/public", `/api/v1/email/feedback/postmark/${feedback_key}`];
      for (const path of targets) {
        for (const [name, bytes] of invalid) {
          const body = new Uint8Array([
            ...encode('{"email":"ann'),
            ...bytes,
            ...encode('@acme.example","key":"pk_x","RecordType":"Delivery","Recipient":"ann@acme.example"}'),
          ]);
          const { status, body: answer } = await call(path, {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              Authorization: `Bearer ${acct.key}`,
              Origin: "https://shop.example",
            },
            body,
          });
          expect([path, name, status, answer.error.code, answer.error.errors?.body]).toEqual([
            path,
            name,
            422,
            "VALIDATION_FAILED",
            ["The body is not valid UTF-8."],
          ]);
        }
      }
      expect(await balance(acct.accountId)).toBe(5);
    },
  );
});
