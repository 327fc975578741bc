import { describe, expect, it, vi } from "vitest";
import { createSecretKey, signedUpOwner } from "../../dashboard-browser";
import { requestRecord } from "../../helpers";
import { installIpSamples } from "../../ip-samples";
import { apiCall } from "./page-errors";

vi.setConfig({ testTimeout: 30_000 });

const decode = (text: string) =>
  text
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
const envelopeOf = (html: string) =>
  JSON.parse(decode(/<pre id="try-envelope">(.*?)<\/pre>/s.exec(html)![1]!)) as {
    success: boolean;
    data?: Record<string, unknown>;
    meta?: Record<string, unknown>;
    error?: { code: string };
  };
async function balance(key: string) {
  const { status, body } = await apiCall(key, "/account");
  expect(status, JSON.stringify(body)).toBe(200);
  return (body.data as { balance: { total: number } }).balance.total;
}

describe("dashboard: try it", () => {
  it("shows one form per product with the product's documented example body", async () => {
    const { browser } = await signedUpOwner("try-forms");
    const response = await browser.fetch("/dashboard/try");
    expect(response.status).toBe(200);
    const html = decode(await response.text());
    for (const product of ["email", "phone", "ip", "address", "entity", "consistency"])
      expect(html).toContain(`action="/dashboard/try/${product}#try-${product}"`);
    expect(html).toContain('"email": "deliverable@service.test"');
    expect(html).toContain('"identifier": "09900001"');
    expect(html).toContain("This account has no live secret key yet");
  });

  it(
    "runs one lookup as the API request: billed, logged and " + "repeated like HTTP; the answer and its sources shown",
    async () => {
      const { browser } = await signedUpOwner("try-run");
      const key = await createSecretKey(browser, { scopes: ["account", "email"] });
      const before = await balance(key);
      const body = JSON.stringify({ email: "anything@catchall.example" });
      const first = await browser.submit("/dashboard/try", "/dashboard/try/email", { key, body });
      expect(first.status).toBe(200);
      const html = await first.text();
      expect(html).toContain('data-status="200"');
      expect(html).toContain("1 credit(s) used");
      expect(html).toMatch(/<table id="try-sources">.*<td>[a-z-]+<\/td>/s);
      // Each source with the coverage its dataset had: the live checks and bundled lists behind email are whole.
      expect(html).toMatch(/<th>Coverage<\/th>/);
      expect(html).toMatch(/<td>live-dns<\/td><td>live<\/td><td>full<\/td>/);
      const envelope = envelopeOf(html);
      expect(envelope.success).toBe(true);
      expect(envelope.data!.email).toBe("anything@catchall.example");
      const requestId = String(envelope.meta!.request_id);
      expect(html).toContain(`href="/dashboard/usage?request=${requestId}#request"`);
      const record = await requestRecord(key, requestId);
      expect([record.status, record.body.data!.endpoint, record.body.data!.credits_used]).toEqual([
        200,
        "POST /api/v1/email",
        1,
      ]);
      expect(await balance(key)).toBe(before - 1);

      const again = envelopeOf(
        await (await browser.submit("/dashboard/try", "/dashboard/try/email", { key, body })).text(),
      );
      expect([again.meta!.credits_used, again.meta!.cache_hit]).toEqual([0, true]);
      expect(await balance(key)).toBe(before - 1);
    },
  );

  it("the key's scopes hold (403 KEY_SCOPE_DENIED shown, nothing charged)", async () => {
    const { browser } = await signedUpOwner("try-scope");
    const key = await createSecretKey(browser, { scopes: ["account", "email"] });
    const before = await balance(key);
    const html = await (
      await browser.submit("/dashboard/try", "/dashboard/try/phone", {
        key,
        body: JSON.stringify({ phone: "+447700900000" }),
      })
    ).text();
    expect(html).toContain('data-status="403"');
    expect(envelopeOf(html).error!.code).toBe("KEY_SCOPE_DENIED");
    expect(await balance(key)).toBe(before);
  });

  it(
    "another account's key, a body that is not JSON and an " + "unknown product are refused before any request",
    async () => {
      const { browser } = await signedUpOwner("try-refused");
      const other = await signedUpOwner("try-other");
      const foreign = await createSecretKey(other.browser, { scopes: ["account", "email"] });
      const before = await balance(foreign);
      const refused = await browser.submit("/dashboard/try", "/dashboard/try/email", {
        key: foreign,
        body: '{"email":"anything@catchall.example"}',
      });
      expect(refused.status).toBe(422);
      expect(await refused.text()).toContain("key: Paste a secret key of this account (sk_live_...).");
      expect(await balance(foreign)).toBe(before);
      const own = await createSecretKey(browser, { scopes: ["email"] });
      const notJson = await browser.submit("/dashboard/try", "/dashboard/try/email", { key: own, body: "{email:" });
      expect(notJson.status).toBe(422);
      expect(await notJson.text()).toContain("body: Must be JSON.");
      expect(
        (await browser.submit("/dashboard/try", "/dashboard/try/no-such-product", { key: own, body: "{}" })).status,
      ).toBe(404);
    },
  );

  it(
    "a run without the session's CSRF token, or from another " + "origin, is refused with 403 and charges nothing",
    async () => {
      const { browser } = await signedUpOwner("try-csrf");
      const key = await createSecretKey(browser, { scopes: ["account", "email"] });
      const before = await balance(key);
      const body = '{"email":"anything@catchall.example"}';
      expect((await browser.fetch("/dashboard/try/email", { form: { key, body } })).status).toBe(403);
      const token = await browser.token("/dashboard/try");
      expect(
        (
          await browser.fetch("/dashboard/try/email", {
            form: { _csrf: token, key, body },
            origin: "https://evil.example",
          })
        ).status,
      ).toBe(403);
      expect(await balance(key)).toBe(before);
    },
  );
});

describe("dashboard: try it tints only what decided", () => {
  const row = (html: string, dataset: string) =>
    new RegExp(`<tr><td>${dataset}</td><td>[^<]*</td><td( class="(\\w+)")?>([^<]*)</td></tr>`).exec(html);

  it("tints a sample that decided a field, not an undecided one, and mutes a live source with no answer", async () => {
    await installIpSamples();
    const { browser } = await signedUpOwner("try-tint");
    const key = await createSecretKey(browser, { scopes: ["account", "ip", "email"] });
    // A Tor range outside the 3-row sample: the exit list was consulted and decided nothing.
    const outside = await (
      await browser.submit("/dashboard/try", "/dashboard/try/ip", {
        key,
        body: JSON.stringify({ ip: "185.220.101.200" }),
      })
    ).text();
    expect(row(outside, "ip-tor-exits")?.slice(2)).toEqual([undefined, "sample (decided nothing)"]);
    expect(envelopeOf(outside).data).toMatchObject({ tor: null, tor_reason: "sample_data" });
    // A listed exit: the sample decided `tor`, so it is tinted.
    const exit = await (
      await browser.submit("/dashboard/try", "/dashboard/try/ip", {
        key,
        body: JSON.stringify({ ip: "185.220.101.1" }),
      })
    ).text();
    expect(row(exit, "ip-tor-exits")?.slice(2)).toEqual(["warn", "sample"]);
    const failed = await (
      await browser.submit("/dashboard/try", "/dashboard/try/email", {
        key,
        body: JSON.stringify({ email: "a@dnsfail.example" }),
      })
    ).text();
    expect(row(failed, "live-dns")?.slice(2)).toEqual(["muted", "none (no answer)"]);
  });
});
