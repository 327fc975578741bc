import { describe, expect, it, vi } from "vitest";
import { bearer, call } from "../../helpers";
import { createSecretKey, signedUpOwner } from "../../dashboard-browser";

vi.setConfig({ testTimeout: 30_000 });

const accountCall = (key: string, ip = "198.51.100.80") =>
  call("/api/v1/account", bearer(key, { "CF-Connecting-IP": ip }));

describe("dashboard: the keys page", () => {
  it(
    "a secret key with scopes, source allowlist and daily cap is shown once and enforced; revoking stops " + "it",
    async () => {
      const { browser } = await signedUpOwner("keys");
      const key = await createSecretKey(browser, {
        scopes: ["email"],
        allowed_ips: "198.51.100.0/24",
        daily_credit_cap: "5",
      });
      const listed = await (await browser.fetch("/dashboard/keys")).text();
      expect(listed).not.toContain(key);
      expect(listed).toContain(`${key.slice(0, 12)}...${key.slice(-4)}`);
      expect(listed).toContain("scopes: email; sources: 198.51.100.0/24; cap 5/day");
      const scope = await accountCall(key);
      expect([scope.status, scope.body.error.code]).toEqual([403, "KEY_SCOPE_DENIED"]);
      const elsewhere = await accountCall(
        await createSecretKey(browser, { scopes: ["account"], allowed_ips: "203.0.113.1" }),
      );
      expect([elsewhere.status, elsewhere.body.error.code]).toEqual([403, "KEY_IP_NOT_ALLOWED"]);

      const open = await createSecretKey(browser, { scopes: ["account"] });
      expect((await accountCall(open)).status).toBe(200);
      const keyId = new RegExp(
        `${open.slice(0, 12)}\\.\\.\\.${open.slice(-4)}.*?/dashboard/keys/(key_[0-9A-Za-z]+)/revoke`,
      ).exec(await (await browser.fetch("/dashboard/keys")).text())![1]!;
      expect((await browser.submit("/dashboard/keys", `/dashboard/keys/${keyId}/revoke`)).status).toBe(200);
      expect((await accountCall(open)).status).toBe(401);
    },
  );

  it(
    "a publishable key takes allowed domains, a cap and the bot-challenge pair; half a pair or no domain is " + "422",
    async () => {
      const { browser } = await signedUpOwner("pk");
      const made = await browser.submit("/dashboard/keys", "/dashboard/keys/publishable", {
        allowed_domains: "shop.example, *.example.org",
        daily_credit_cap: "10",
        challenge_site_key: "site",
        challenge_secret: "secret",
      });
      const html = await made.text();
      expect(/id="new-key">pk_live_[0-9A-Za-z]+</.test(html)).toBe(true);
      expect(html).toContain("domains: shop.example, *.example.org; bot challenge; cap 10/day");
      const half = await browser.submit("/dashboard/keys", "/dashboard/keys/publishable", {
        allowed_domains: "shop.example",
        challenge_site_key: "site",
      });
      expect(half.status).toBe(422);
      expect(await half.text()).toContain("challenge_secret: Give both the site key and the secret, or neither.");
      expect(
        (await browser.submit("/dashboard/keys", "/dashboard/keys/publishable", { allowed_domains: "" })).status,
      ).toBe(422);
      expect((await browser.submit("/dashboard/keys", "/dashboard/keys/secret", {})).status).toBe(422);
    },
  );

  it("rotating the feedback key shows a new fb_ key once; a key id of another account is not found", async () => {
    const { browser } = await signedUpOwner("fb");
    const first = /id="new-key">(fb_[0-9A-Za-z]+)</.exec(
      await (await browser.submit("/dashboard/keys", "/dashboard/keys/feedback/rotate")).text(),
    )?.[1];
    const second = /id="new-key">(fb_[0-9A-Za-z]+)</.exec(
      await (await browser.submit("/dashboard/keys", "/dashboard/keys/feedback/rotate")).text(),
    )?.[1];
    expect(first).toMatch(/^fb_/);
    expect(second).not.toBe(first);
    const other = await signedUpOwner("fb-other");
    await createSecretKey(other.browser);
    const foreignId = /\/dashboard\/keys\/(key_[0-9A-Za-z]+)\/revoke/.exec(
      await (await other.browser.fetch("/dashboard/keys")).text(),
    )![1]!;
    expect((await browser.submit("/dashboard/keys", `/dashboard/keys/${foreignId}/revoke`)).status).toBe(404);
    expect(await (await other.browser.fetch("/dashboard/keys")).text()).not.toContain("revoked ");
  });
});
