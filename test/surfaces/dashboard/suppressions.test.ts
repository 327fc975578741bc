import { describe, expect, it, vi } from "vitest";
import { createSecretKey, signedUpOwner } from "../../dashboard-browser";
import { apiCall, htmlText } from "./page-errors";

vi.setConfig({ testTimeout: 30_000 });

type Listed = { suppressions: { id: number; email: string; reason: string; source: string }[] };

describe("dashboard: suppressions", () => {
  it("adds values as the API does (test values never, unreadable ones invalid) and removes an entry", async () => {
    const { browser } = await signedUpOwner("sup-add");
    const key = await createSecretKey(browser, { scopes: ["email"] });
    const added = await browser.submit("/dashboard/suppressions", "/dashboard/suppressions/email", {
      values: "Someone@Example.com\nsomeone@example.com\nnot an address\ndeliverable@service.test",
      reason: "complaint",
    });
    expect(added.status).toBe(200);
    expect(await added.text()).toContain(
      "Added 1; invalid: not an address; test values (never suppressed): deliverable@service.test.",
    );
    const viaApi = await apiCall(key, "/email/suppressions", "POST", {
      emails: ["someone@example.com", "not an address", "deliverable@service.test"],
    });
    expect(viaApi.body.data).toEqual({
      added: 0,
      invalid: ["not an address"],
      test_values: ["deliverable@service.test"],
    });
    const listed = (await apiCall(key, "/email/suppressions")).body.data as Listed;
    expect(listed.suppressions).toMatchObject([
      { email: "someone@example.com", reason: "complaint", source: "manual" },
    ]);
    const page = await (await browser.fetch("/dashboard/suppressions?product=email")).text();
    expect(page).toContain("email: 1 suppressed");
    expect(page).toContain("<code>someone@example.com</code>");

    const id = listed.suppressions[0]!.id;
    const removed = await browser.submit("/dashboard/suppressions", `/dashboard/suppressions/email/${id}/delete`);
    expect(removed.status).toBe(200);
    expect(((await apiCall(key, "/email/suppressions")).body.data as Listed).suppressions).toEqual([]);
    const again = await browser.submit("/dashboard/suppressions", `/dashboard/suppressions/email/${id}/delete`);
    expect(again.status).toBe(404);
  });

  it("pages 100 entries at a time, newest first", async () => {
    const { browser } = await signedUpOwner("sup-page");
    const values = Array.from({ length: 101 }, (_, i) => `user${i}@paged.example`).join("\n");
    expect((await browser.submit("/dashboard/suppressions", "/dashboard/suppressions/email", { values })).status).toBe(
      200,
    );
    const first = await (await browser.fetch("/dashboard/suppressions?product=email")).text();
    expect(first).toContain("email: 101 suppressed");
    expect(first).toContain("page 1 of 2");
    expect(first.match(/<code>user\d+@paged\.example<\/code>/g)).toHaveLength(100);
    const second = await (await browser.fetch("/dashboard/suppressions?product=email&page=2")).text();
    expect(second.match(/<code>user\d+@paged\.example<\/code>/g)).toEqual(["<code>user0@paged.example</code>"]);
  });

  it("refuses a bad list with the API's errors, a post without the token, and another account's entry", async () => {
    const mine = await signedUpOwner("sup-mine");
    const other = await signedUpOwner("sup-other");
    const otherKey = await createSecretKey(other.browser, { scopes: ["email"] });
    await other.browser.submit("/dashboard/suppressions", "/dashboard/suppressions/email", {
      values: "kept@example.org",
    });
    const id = ((await apiCall(otherKey, "/email/suppressions")).body.data as Listed).suppressions[0]!.id;
    const foreign = await mine.browser.submit("/dashboard/suppressions", `/dashboard/suppressions/email/${id}/delete`);
    expect(foreign.status).toBe(404);
    const forged = await mine.browser.fetch(`/dashboard/suppressions/email/${id}/delete`, { form: {} });
    expect(forged.status).toBe(403);
    expect(((await apiCall(otherKey, "/email/suppressions")).body.data as Listed).suppressions).toHaveLength(1);

    const tooLong = await mine.browser.submit("/dashboard/suppressions", "/dashboard/suppressions/email", {
      values: "a@example.org",
      reason: "r".repeat(65),
    });
    const viaApi = await apiCall(otherKey, "/email/suppressions", "POST", {
      emails: ["a@example.org"],
      reason: "r".repeat(65),
    });
    expect([tooLong.status, viaApi.status]).toEqual([422, 422]);
    const message = (viaApi.body.error!.errors as Record<string, string[]>).reason![0]!;
    expect(htmlText(await tooLong.text())).toContain(`reason: ${message}`);
  });
});
