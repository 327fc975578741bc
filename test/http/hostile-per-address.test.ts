import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEY } from "../../src/auth/keys";
import { LIMITS } from "../../src/limits/limiter";
import { sourceSubject } from "../../src/limits/source";
import { Browser, uniqueEmail } from "../dashboard-browser";
import { randomToken } from "../../src/platform/tokens";
import { admin, BASE, bearer, call, createAccount, json } from "../helpers";

const account = (key: string, ip: string) => call("/api/v1/account", bearer(key, { "CF-Connecting-IP": ip }));
const randomSecret = () => `sk_live_${randomToken(40)}`;

/**
 * Every per-address rule counts an IPv6 source by its /64 (docs/authentication.md, "Source addresses"): the attack
 * sent 60 browser lookups from 60 addresses of one /64 through a public pk_ key, and all were answered and charged.
 */
let block = 0;
/** A /64 no other test uses, and its `n`th address. */
function slash64() {
  const hex = (n: number) => n.toString(16);
  const prefix = `2001:db8:${hex(Date.now() % 0xffff)}:${hex(++block + Math.floor(Math.random() * 0xfff))}`;
  return (n: number) => `${prefix}:${hex(n + 1)}::${hex(n * 7 + 1)}`;
}

describe("the source subject", () => {
  it("is the address for IPv4 (mapped spellings too), the /64 for IPv6, one subject for none", () => {
    expect(sourceSubject("192.0.2.7")).toBe(sourceSubject("::ffff:192.0.2.7"));
    expect(sourceSubject("192.0.2.7")).not.toBe(sourceSubject("192.0.2.8"));
    expect(sourceSubject("2001:db8:1:2:aaaa::1")).toBe(sourceSubject("2001:db8:1:2:ffff:1:2:3"));
    expect(sourceSubject("2001:db8:1:2::1")).not.toBe(sourceSubject("2001:db8:1:3::1"));
    expect(sourceSubject(undefined)).toBe(sourceSubject("not an address"));
  });
});

describe("per-address limits count an IPv6 source by its /64", () => {
  it("browser lookups: the 21st from one /64 through a pk_ key answers 429; another /64 is answered", async () => {
    const acct = await createAccount({ pack: 100 });
    const { key } = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      user_id: acct.userId,
      allowed_domains: ["shop.example"],
    });
    const address = slash64();
    const lookup = (ip: string) =>
      call(
        "/api/v1/email/public",
        json({ key, email: "deliverable@service.test" }, { Origin: "https://shop.example", "CF-Connecting-IP": ip }),
      );
    const statuses: number[] = [];
    for (let i = 0; i <= LIMITS.browserVisitor.limit; i++) statuses.push((await lookup(address(i))).status);
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect((await lookup(slash64()(0))).status).toBe(200);
  });

  it("the sandbox key: the 31st request from one /64 answers 429", async () => {
    const address = slash64();
    const statuses: number[] = [];
    for (let i = 0; i <= LIMITS.sandboxAddress.limit; i++) {
      const response = await SELF.fetch(
        `${BASE}/api/v1/email`,
        json(
          { email: "deliverable@service.test" },
          bearer(SANDBOX_KEY, { "CF-Connecting-IP": address(i) }).headers as Record<string, string>,
        ),
      );
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  for (const form of ["sign-in", "sign-up"]) {
    it(`${form}: the 11th attempt from one /64 answers 429 whatever the email`, async () => {
      const address = slash64();
      const statuses: number[] = [];
      for (let i = 0; i <= LIMITS.signInAddress.limit; i++) {
        const browser = new Browser(address(i));
        statuses.push(
          (await browser.submit(`/dashboard/${form}`, `/dashboard/${form}`, { email: uniqueEmail(form) })).status,
        );
      }
      expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
    });
  }

  it("passkey sign-in options have a limit per address, counted by /64", async () => {
    const address = slash64();
    const statuses: number[] = [];
    for (let i = 0; i <= LIMITS.passkeyOptionsAddress.limit; i++) {
      const browser = new Browser(address(i));
      const csrf = await browser.token("/dashboard/sign-in");
      const response = await browser.fetch("/dashboard/sign-in/passkey/options", {
        method: "POST",
        headers: { "X-CSRF-Token": csrf, "Content-Type": "application/json" },
        body: "{}",
      });
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});

/**
 * A burst of unknown keys locked out valid keys from the same address (40 unknown keys, then a new valid key: 429 for
 * 185 s). A valid key is never refused because others guessed from its address (docs/authentication.md, "Flood rule").
 */
describe("the unknown-key flood rule and valid keys", () => {
  it("never refuses a valid key for what others guessed from its address: secret, publishable, feedback", async () => {
    const shared = slash64()(0);
    const acct = await createAccount({ pack: 10 });
    for (let i = 0; i < 40; i++) await account(randomSecret(), shared);
    expect((await account(randomSecret(), shared)).body.error.code).toBe("RATE_LIMITED");
    const fresh = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/secret`, {
      user_id: acct.userId,
      scopes: ["account"],
    });
    expect((await account(fresh.key, shared)).status).toBe(200);
    const pk = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      user_id: acct.userId,
      allowed_domains: ["localhost"],
    });
    const browser = await call(
      "/api/v1/email/public",
      json(
        { key: pk.key, email: "deliverable@service.test" },
        { Origin: "http://localhost", "CF-Connecting-IP": shared },
      ),
    );
    expect(browser.status).toBe(200);
    const { feedback_key } = await admin<{ feedback_key: string }>("POST", `/accounts/${acct.accountId}/feedback-key`);
    const inbound = await call(
      `/api/v1/email/feedback/sendgrid/${feedback_key}`,
      json([], { "CF-Connecting-IP": shared }),
    );
    expect(inbound.status).toBe(200);
  });
});
