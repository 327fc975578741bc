import { describe, expect, it, vi } from "vitest";
import { Browser, createSecretKey, followLatestLink, signedUpOwner, uniqueEmail } from "../../dashboard-browser";
import { apiCall, apiErrors, errorsOn } from "./page-errors";

vi.setConfig({ testTimeout: 30_000 });

const RULES = { deliverable: { risky: "review", undeliverable: "block" }, blocked_domains: ["spam.example"] };

describe("dashboard: sending policies", () => {
  it("set and clear go through the policy engine: the API reads what the page set, and answers carry it", async () => {
    const { browser } = await signedUpOwner("pol-set");
    const key = await createSecretKey(browser, { scopes: ["email"] });
    const set = await browser.submit("/dashboard/policies", "/dashboard/policies/email", {
      rules: JSON.stringify(RULES),
    });
    expect(set.status).toBe(200);
    expect(await set.text()).toContain("The email policy is set.");
    const read = await apiCall(key, "/email/policy");
    expect((read.body.data as { policy: { rules: unknown } }).policy.rules).toEqual(RULES);
    const lookup = await apiCall(key, "/email", "POST", { email: "undeliverable@service.test" });
    expect((lookup.body.data as { policy: unknown }).policy).toEqual({
      action: "block",
      rules_hit: ["deliverable.undeliverable"],
    });
    expect(await (await browser.fetch("/dashboard/policies")).text()).toContain("spam.example");

    const cleared = await browser.submit("/dashboard/policies", "/dashboard/policies/email/clear");
    expect(cleared.status).toBe(200);
    expect((await apiCall(key, "/email/policy")).body.data).toEqual({ policy: null });
  });

  it("refuses what PUT refuses, with the same field errors; nothing changes", async () => {
    const { browser } = await signedUpOwner("pol-refuse");
    const key = await createSecretKey(browser, { scopes: ["email"] });
    for (const rules of [{}, { deliverable: { risky: "maybe" } }, { unknown_rule: true }]) {
      const page = await browser.submit("/dashboard/policies", "/dashboard/policies/email", {
        rules: JSON.stringify(rules),
      });
      const refused = await apiCall(key, "/email/policy", "PUT", rules);
      expect([page.status, refused.status, refused.body.error?.code]).toEqual([422, 422, "VALIDATION_FAILED"]);
      expect(errorsOn(await page.text())).toEqual(apiErrors(refused.body.error));
    }
    const notJson = await browser.submit("/dashboard/policies", "/dashboard/policies/email", { rules: "{" });
    expect(notJson.status).toBe(422);
    expect(errorsOn(await notJson.text())).toEqual([["body", "The body is not valid JSON."]]);
    expect((await apiCall(key, "/email/policy")).body.data).toEqual({ policy: null });
  });

  it("a post without the CSRF token is refused; a member sets the account's policy as an owner does", async () => {
    const owner = await signedUpOwner("pol-team");
    const key = await createSecretKey(owner.browser, { scopes: ["email"] });
    const forged = await owner.browser.fetch("/dashboard/policies/email", { form: { rules: JSON.stringify(RULES) } });
    expect(forged.status).toBe(403);
    expect((await apiCall(key, "/email/policy")).body.data).toEqual({ policy: null });
    const memberEmail = uniqueEmail("pol-member");
    await owner.browser.submit("/dashboard/members", "/dashboard/members", { email: memberEmail, role: "member" });
    const member = new Browser();
    await followLatestLink(member, memberEmail);
    const set = await member.submit("/dashboard/policies", "/dashboard/policies/email", {
      rules: JSON.stringify(RULES),
    });
    expect(set.status).toBe(200);
    expect((await apiCall(key, "/email/policy")).body.data).toMatchObject({ policy: { rules: RULES } });
  });
});
