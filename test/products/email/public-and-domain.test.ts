import { fetchChecked } from "../../openapi-check";
import { describe, expect, it } from "vitest";
import { admin, BASE, bearer, call, createAccount, accountObject, mailboxesShared, type Envelope } from "../../helpers";

async function publishable(pack: number, dailyCap: number | null = null) {
  const acct = await createAccount({ pack });
  const pk = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
    allowed_domains: ["localhost"],
    daily_credit_cap: dailyCap,
  });
  return { ...acct, pk: pk.key };
}

const browserLookup = (key: string, email: string, origin = "http://localhost:5173", ip = "198.51.100.77") =>
  fetchChecked(`${BASE}/api/v1/email/public`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin, "CF-Connecting-IP": ip },
    body: JSON.stringify({ key, email }),
  });

describe("POST /api/v1/email/public", () => {
  it("answers {success, data} without meta, bills the key's owner and allows the page's origin", async () => {
    const { pk, accountId } = await publishable(3);
    const response = await browserLookup(pk, "alice@acme.example");
    expect(response.status).toBe(200);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost:5173");
    const body = (await response.json()) as Envelope;
    expect(Object.keys(body).sort()).toEqual(["data", "success"]);
    expect(body.data).toMatchObject({ deliverable: "deliverable" });
    expect((await accountObject(accountId).snapshot()).pack_credits).toBe(2);
  });

  it("answers a CORS preflight", async () => {
    const response = await fetchChecked(`${BASE}/api/v1/email/public`, {
      method: "OPTIONS",
      headers: {
        Origin: "http://localhost:5173",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("Access-Control-Allow-Methods")).toContain("POST");
  });

  it("checks the Origin before any credit is spent", async () => {
    const { pk, accountId } = await publishable(3);
    const response = await browserLookup(pk, "alice@acme.example", "https://evil.example");
    expect(response.status).toBe(403);
    expect(((await response.json()) as Envelope).error.code).toBe("ORIGIN_NOT_ALLOWED");
    expect((await accountObject(accountId).snapshot()).pack_credits).toBe(3);
  });

  it("does not count free answers toward the key's daily cap", async () => {
    const { pk } = await publishable(5, 1);
    for (const email of ["deliverable@service.test", "nobody1@acme.example", "nobody2@acme.example"]) {
      expect((await browserLookup(pk, email)).status, email).toBe(200);
    }
    expect((await browserLookup(pk, "alice@acme.example")).status).toBe(200);
    const capped = await browserLookup(pk, "bob@acme.example");
    expect(capped.status).toBe(429);
    expect(((await capped.json()) as Envelope).error.code).toBe("KEY_SPEND_CAP_REACHED");
  });

  it("limits a visitor to 20 lookups a minute", async () => {
    const { pk } = await publishable(0);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++)
      statuses.push((await browserLookup(pk, "deliverable@service.test", undefined, "203.0.113.99")).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it("refuses a secret key in the body (422) and a publishable key as bearer (401)", async () => {
    const acct = await createAccount({ pack: 1 });
    expect((await browserLookup(acct.key, "alice@acme.example")).status).toBe(422);
    const { pk } = await publishable(1);
    const bearerUse = await call("/api/v1/email", {
      method: "POST",
      headers: { Authorization: `Bearer ${pk}`, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(bearerUse.status).toBe(401);
  });
});

describe("GET /api/v1/email/domain/{domain}", () => {
  it("answers domain intelligence, billed 1 when mx_found and fresh; a repeat is free", async () => {
    const acct = await createAccount({ pack: 3 });
    const { status, body } = await call("/api/v1/email/domain/ACME.example", bearer(acct.key));
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      domain: "acme.example",
      valid: true,
      mx_found: true,
      mx_implicit: false,
      has_spf: true,
      dmarc_policy: "reject",
      domain_registered_at: "2015-03-01",
      disposable: false,
      free_provider: false,
    });
    expect(body.meta).toMatchObject({ credits_used: 1, credits_remaining: 2, cache_hit: false });
    const again = await call("/api/v1/email/domain/acme.example", bearer(acct.key));
    expect(again.body.meta).toMatchObject({ credits_used: 0, cache_hit: true, credits_remaining: 2 });
  });

  it("converts internationalised names to punycode", async () => {
    const acct = await createAccount({ pack: 3 });
    const { body } = await call(`/api/v1/email/domain/${encodeURIComponent("bücher.example")}`, bearer(acct.key));
    expect(body.data).toMatchObject({ domain: "xn--bcher-kva.example", valid: true, mx_found: false });
    expect(body.meta.credits_used).toBe(0);
  });

  it("answers a non-hostname with valid false and every other field null, free", async () => {
    const acct = await createAccount({ pack: 0 });
    const { status, body } = await call("/api/v1/email/domain/not_a_host", bearer(acct.key));
    expect(status).toBe(200);
    const data = body.data as Record<string, unknown>;
    expect(data.valid).toBe(false);
    expect(
      Object.entries(data)
        .filter(([k]) => k !== "domain" && k !== "valid")
        .every(([, v]) => v === null),
    ).toBe(true);
    expect(body.meta.credits_used).toBe(0);
  });

  it("reports catch_all when an address there answered catch-all this week", async () => {
    const acct = await createAccount({ pack: 5 });
    await call("/api/v1/email", {
      method: "POST",
      headers: { Authorization: `Bearer ${acct.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ email: "z@catchall.example" }),
    });
    // The domain lookup reads the shared answers, which the queue's consumer stores after the address's answer.
    await mailboxesShared(["z@catchall.example"]);
    const { body } = await call("/api/v1/email/domain/catchall.example", bearer(acct.key));
    expect(body.data).toMatchObject({ catch_all: true });
  });

  it("answers a domain without mail free", async () => {
    const acct = await createAccount({ pack: 1 });
    const { body } = await call("/api/v1/email/domain/nullmx.example", bearer(acct.key));
    expect(body.data).toMatchObject({ mx_found: false });
    expect(body.meta.credits_used).toBe(0);
  });

  it(
    "answers a resolver outage 500 SERVER_ERROR with a request id, billing nothing and remembering " + "nothing",
    async () => {
      const acct = await createAccount({ pack: 2 });
      for (let i = 0; i < 2; i++) {
        const { status, body } = await call("/api/v1/email/domain/dnsfail.example", bearer(acct.key));
        expect(status).toBe(500);
        expect(body.error).toMatchObject({ code: "SERVER_ERROR", message: expect.stringContaining("DNS resolver") });
        expect(body.error.request_id).toMatch(/^req_/);
      }
      expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(2);
    },
  );

  it("answers 402 when the balance is empty", async () => {
    const acct = await createAccount({ pack: 0 });
    const { status, body } = await call("/api/v1/email/domain/acme.example", bearer(acct.key));
    expect(status).toBe(402);
    expect(body.error.code).toBe("INSUFFICIENT_CREDITS");
  });
});
