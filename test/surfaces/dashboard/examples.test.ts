import { describe, expect, it, vi } from "vitest";
import { SANDBOX_KEY } from "../../../src/auth/keys";
import { registeredProducts } from "../../../src/products/registry";
import { createSecretKey, signedUpOwner } from "../../dashboard-browser";
import { apiCall, htmlText } from "./page-errors";

vi.setConfig({ testTimeout: 30_000 });

describe("dashboard: sandbox and test values", () => {
  it("shows every product's declared samples with a copy button; each is a sample, answered free", async () => {
    const { browser } = await signedUpOwner("examples");
    const page = await browser.fetch("/dashboard/examples");
    expect(page.status).toBe(200);
    const html = htmlText(await page.text());
    expect(html).toContain(`<code id="sandbox-key">${SANDBOX_KEY}</code>`);
    expect(html).toContain('<script src="/dashboard/assets/copy.js">');
    const listed = registeredProducts().filter((p) => p.samples?.length);
    // The products that list samples today; one registered later with samples is listed too.
    expect(listed.map((p) => p.name)).toEqual(expect.arrayContaining(["email", "phone", "ip", "address"]));
    for (const product of listed) {
      for (const sample of product.samples!) {
        expect(product.isSample(sample)).toBe(true);
        const spelled = typeof sample === "string" ? sample : JSON.stringify(sample);
        expect(html).toContain(`<code class="sample">${spelled}</code>`);
        expect(html).toContain(`data-copy="${spelled}"`);
      }
    }
    // Each value with what it answers: the product's own canned answer, its verdict field and reason.
    expect(html).toMatch(/deliverable@service\.test<\/code><\/td><td class="answer">deliverable: deliverable<\/td>/);
    expect(html).toMatch(/undeliverable@service\.test<\/code><\/td><td class="answer">deliverable: undeliverable \(/);
    expect(html).toContain('<table class="copy-table">');
    const key = await createSecretKey(browser, { scopes: ["email", "phone"] });
    const email = await apiCall(key, "/email", "POST", { email: listed[0]!.samples![0] });
    const phone = await apiCall(key, "/phone", "POST", { phone: listed[1]!.samples![0] });
    expect([email.status, email.body.meta?.credits_used, phone.status, phone.body.meta?.credits_used]).toEqual([
      200, 0, 200, 0,
    ]);
    const script = await browser.fetch("/dashboard/assets/copy.js");
    expect([script.status, script.headers.get("Content-Type")]).toEqual([200, "text/javascript; charset=utf-8"]);
  });
});
