import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, BASE, createAccount } from "../helpers";

/** What a page on another origin (a customer's sign-up form) may read of a browser endpoint's answers. */
describe("browser endpoints across origins", () => {
  const origin = "https://shop.example.com";

  it("lets the page read Retry-After and X-Request-Id of a 429, so the widget can back off", async () => {
    const acct = await createAccount();
    const { key } = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      allowed_domains: ["*.example.com"],
    });
    const lookup = () =>
      SELF.fetch(`${BASE}/api/v1/email/public`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: origin, "CF-Connecting-IP": "203.0.113.150" },
        body: JSON.stringify({ key, email: "deliverable@service.test" }),
      });
    for (let i = 0; i < 20; i++) expect((await lookup()).status).toBe(200);
    const limited = await lookup();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    const exposed = (limited.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase().split(/\s*,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(["retry-after", "x-request-id"]));
    expect(limited.headers.get("X-Request-Id")).toMatch(/^req_/);
  });

  it("answers the preflight of a JSON POST without credentials", async () => {
    const response = await SELF.fetch(`${BASE}/api/v1/email/public`, {
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    expect(response.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("content-type");
    expect(response.headers.get("Access-Control-Allow-Credentials")).toBeNull();
  });
});
