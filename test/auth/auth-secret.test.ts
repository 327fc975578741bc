import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, bearer, call, createAccount } from "../helpers";

const account = (key: string, headers: Record<string, string> = {}) => call("/api/v1/account", bearer(key, headers));

describe("secret keys", () => {
  it("accepts a valid key and never returns the key or its hash again", async () => {
    const acct = await createAccount();
    expect(acct.key).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    const { status, body } = await account(acct.key);
    expect(status).toBe(200);
    expect(JSON.stringify(body)).not.toContain(acct.key);
  });

  it.each([
    ["no Authorization header", {}],
    ["a non-Bearer scheme", { Authorization: "Basic abc" }],
    ["a malformed key", { Authorization: "Bearer sk_live_short" }],
    ["an unknown key", { Authorization: `Bearer sk_live_${"x".repeat(40)}` }],
    ["a publishable key as bearer", { Authorization: `Bearer pk_live_${"a".repeat(32)}` }],
  ])("answers %s with 401 UNAUTHENTICATED", async (_label, headers) => {
    const { status, body } = await call("/api/v1/account", { headers });
    expect(status).toBe(401);
    expect(body.error.code).toBe("UNAUTHENTICATED");
  });

  it("answers a revoked key with 401 UNAUTHENTICATED", async () => {
    const acct = await createAccount();
    await admin("DELETE", `/keys/${acct.keyId}`);
    const { status, body } = await account(acct.key);
    expect(status).toBe(401);
    expect(body.error.code).toBe("UNAUTHENTICATED");
  });

  it("answers 403 EMAIL_NOT_VERIFIED until the account confirms its email, then works", async () => {
    const acct = await createAccount({ verified: false });
    const denied = await account(acct.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("EMAIL_NOT_VERIFIED");
    await admin("POST", `/accounts/${acct.accountId}/verify-email`);
    expect((await account(acct.key)).status).toBe(200);
  });

  it("answers 403 KEY_ACCOUNT_MISMATCH once the key's holder has left the account", async () => {
    const acct = await createAccount();
    await admin("DELETE", `/accounts/${acct.accountId}/members/${acct.userId}`);
    const { status, body } = await account(acct.key);
    expect(status).toBe(403);
    expect(body.error.code).toBe("KEY_ACCOUNT_MISMATCH");
  });

  it("refuses a removed holder's key while they are only invited again, until they are a member again", async () => {
    const acct = await createAccount();
    const { key: unseen } = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/secret`, {
      user_id: acct.userId,
      scopes: ["account"],
    });
    await admin("DELETE", `/accounts/${acct.accountId}/members/${acct.userId}`);
    expect((await account(acct.key)).body.error.code).toBe("KEY_ACCOUNT_MISMATCH");
    // The row a dashboard invitation writes: pending (no accepted_at). A pending invitation makes no keys, so a key
    // its holder has is from the earlier membership. `unseen` was never looked up: no cached row answers for it.
    await env.DB.prepare(
      "INSERT INTO memberships (account_id, user_id, role, created_at, accepted_at) VALUES (?, ?, 'member', ?, NULL)",
    )
      .bind(acct.accountId, acct.userId, Date.now())
      .run();
    const pending = await account(unseen);
    expect([pending.status, pending.body.error.code]).toEqual([403, "KEY_ACCOUNT_MISMATCH"]);
    // The operator adds the member back (accepted at once): the operator vouches, the keys it detached work again.
    const user = await env.DB.prepare("SELECT email FROM users WHERE id = ?")
      .bind(acct.userId)
      .first<{ email: string }>();
    await admin("POST", `/accounts/${acct.accountId}/members`, { email: user!.email });
    expect((await account(unseen)).status).toBe(200);
  });

  it(
    "a key revoked at the instant its holder left (migration 0036's) answers 403 KEY_ACCOUNT_MISMATCH, even with " +
      "the holder back; one a person revoked answers 401",
    async () => {
      const acct = await createAccount();
      const mark = (keyId: string, revokedAt: number, holderLeftAt: number) =>
        env.DB.prepare("UPDATE api_keys SET revoked_at = ?, holder_left_at = ? WHERE id = ?")
          .bind(revokedAt, holderLeftAt, keyId)
          .run();
      const other = await admin<{ id: string; key: string }>("POST", `/accounts/${acct.accountId}/keys/secret`, {
        user_id: acct.userId,
        scopes: ["account"],
      });
      // Neither key was looked up yet, so no cached row answers; the holder is an accepted member throughout.
      await mark(acct.keyId, 1_700_000_000_000, 1_700_000_000_000);
      await mark(other.id, 1_700_000_060_000, 1_700_000_000_000);
      const departed = await account(acct.key);
      expect([departed.status, departed.body.error.code]).toEqual([403, "KEY_ACCOUNT_MISMATCH"]);
      const revoked = await account(other.key);
      expect([revoked.status, revoked.body.error.code]).toEqual([401, "UNAUTHENTICATED"]);
    },
  );

  it("checks the source allowlist (IPv4, IPv6, CIDR, IPv4-mapped IPv6) from CF-Connecting-IP", async () => {
    const acct = await createAccount({ key: { allowed_ips: ["203.0.113.0/24", "2001:db8::/32", "198.51.100.7"] } });
    for (const ip of ["203.0.113.9", "2001:db8:1::5", "198.51.100.7", "::ffff:203.0.113.200"]) {
      expect((await account(acct.key, { "CF-Connecting-IP": ip })).status, ip).toBe(200);
    }
    for (const ip of ["203.0.114.1", "2001:db9::1", "198.51.100.8", "garbage"]) {
      const { status, body } = await account(acct.key, { "CF-Connecting-IP": ip });
      expect(status, ip).toBe(403);
      expect(body.error.code).toBe("KEY_IP_NOT_ALLOWED");
    }
    const missing = await account(acct.key);
    expect(missing.body.error.code).toBe("KEY_IP_NOT_ALLOWED");
  });

  it("answers 403 KEY_SCOPE_DENIED when the key lacks the endpoint's scope", async () => {
    const acct = await createAccount({ key: { scopes: ["email"] } });
    const { status, body } = await account(acct.key);
    expect(status).toBe(403);
    expect(body.error.code).toBe("KEY_SCOPE_DENIED");
    // Status data needs a valid key but no scope.
    expect((await call("/api/v1/status/data", bearer(acct.key))).status).toBe(200);
  });

  describe("check order: the first failing check answers", () => {
    it("EMAIL_NOT_VERIFIED before KEY_ACCOUNT_MISMATCH, KEY_IP_NOT_ALLOWED and KEY_SCOPE_DENIED", async () => {
      const acct = await createAccount({ verified: false, key: { scopes: ["email"], allowed_ips: ["10.0.0.1"] } });
      await admin("DELETE", `/accounts/${acct.accountId}/members/${acct.userId}`);
      expect((await account(acct.key, { "CF-Connecting-IP": "1.1.1.1" })).body.error.code).toBe("EMAIL_NOT_VERIFIED");
    });

    it("KEY_ACCOUNT_MISMATCH before KEY_IP_NOT_ALLOWED and KEY_SCOPE_DENIED", async () => {
      const acct = await createAccount({ key: { scopes: ["email"], allowed_ips: ["10.0.0.1"] } });
      await admin("DELETE", `/accounts/${acct.accountId}/members/${acct.userId}`);
      expect((await account(acct.key, { "CF-Connecting-IP": "1.1.1.1" })).body.error.code).toBe("KEY_ACCOUNT_MISMATCH");
    });

    it("KEY_IP_NOT_ALLOWED before KEY_SCOPE_DENIED", async () => {
      const acct = await createAccount({ key: { scopes: ["email"], allowed_ips: ["10.0.0.1"] } });
      expect((await account(acct.key, { "CF-Connecting-IP": "1.1.1.1" })).body.error.code).toBe("KEY_IP_NOT_ALLOWED");
    });

    it("a revoked key is UNAUTHENTICATED whatever else is wrong with it", async () => {
      const acct = await createAccount({ verified: false, key: { scopes: ["email"] } });
      await admin("DELETE", `/keys/${acct.keyId}`);
      expect((await account(acct.key)).body.error.code).toBe("UNAUTHENTICATED");
    });

    it("KEY_SCOPE_DENIED before RATE_LIMITED, and refused requests do not use up the rate", async () => {
      const acct = await createAccount({ key: { scopes: ["email"] } });
      const codes = await Promise.all(
        Array.from({ length: 8 }, () => account(acct.key).then((r) => r.body.error.code)),
      );
      expect(new Set(codes)).toEqual(new Set(["KEY_SCOPE_DENIED"]));
    });
  });
});
