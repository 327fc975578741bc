import { describe, expect, it, vi } from "vitest";
import { admin, bearer, call } from "../../helpers";
import {
  Browser,
  createSecretKey,
  followLatestLink,
  signInByMail,
  signedUpOwner,
  uniqueEmail,
} from "../../dashboard-browser";

// Each sign-in waits for its mail to reach the local catcher (about a second through the queue and the sidecar).
vi.setConfig({ testTimeout: 30_000 });

const accountCall = (key: string) => call("/api/v1/account", bearer(key, { "CF-Connecting-IP": "198.51.100.79" }));

describe("dashboard: CSRF protection on every state change", () => {
  it(
    "a signed-in post without the session's token, with another session's token, or from another origin changes " +
      "nothing (403)",
    async () => {
      const { browser } = await signedUpOwner("csrf");
      const other = await signedUpOwner("csrf-other");
      const token = await browser.token("/dashboard/keys");
      const form = { scopes: "account" };
      const refusals = [
        await browser.fetch("/dashboard/keys/secret", { form }),
        await browser.fetch("/dashboard/keys/secret", {
          form: { ...form, _csrf: await other.browser.token("/dashboard/keys") },
        }),
        await browser.fetch("/dashboard/keys/secret", {
          form: { ...form, _csrf: token },
          origin: "https://evil.example",
        }),
        await browser.fetch("/dashboard/keys/secret", { form: { ...form, _csrf: token }, origin: null }),
        await browser.fetch("/dashboard/sign-out-everywhere", { form: {} }),
      ];
      expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
      expect(await (await browser.fetch("/dashboard/keys")).text()).toContain("No keys yet.");
      const accepted = await browser.fetch("/dashboard/keys/secret", { form: { ...form, _csrf: token } });
      expect(accepted.status).toBe(200);
    },
  );

  it("signed-out forms need the browser's CSRF cookie token and this origin", async () => {
    const email = uniqueEmail("anon-csrf");
    const fresh = new Browser();
    expect((await fresh.fetch("/dashboard/sign-up", { form: { email } })).status).toBe(403);
    const browser = new Browser();
    const token = await browser.token("/dashboard/sign-up");
    expect(
      (await browser.fetch("/dashboard/sign-up", { form: { email, _csrf: token }, origin: "https://evil.example" }))
        .status,
    ).toBe(403);
    expect((await browser.fetch("/dashboard/sign-up", { form: { email, _csrf: "x".repeat(32) } })).status).toBe(403);
    expect((await browser.fetch("/dashboard/sign-up", { form: { email, _csrf: token } })).status).toBe(200);
  });
});

describe("dashboard: security headers on every page", () => {
  it(
    "CSP with frame-ancestors 'none', X-Frame-Options DENY, referrer to this origin only, no caching: signed out, " +
      "signed in and refusals",
    async () => {
      const { browser } = await signedUpOwner("headers");
      const pages = [
        await new Browser().fetch("/dashboard/sign-in"),
        await new Browser().fetch("/dashboard/sign-up"),
        await browser.fetch("/dashboard/keys"),
        await browser.fetch("/dashboard/members"),
        await browser.fetch("/dashboard/account"),
        await browser.fetch("/dashboard/keys/secret", { form: {} }),
        await new Browser().fetch("/dashboard/keys"),
      ];
      for (const page of pages) {
        const csp = page.headers.get("Content-Security-Policy") ?? "";
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).toContain("default-src 'none'");
        expect(csp).toContain("script-src 'self'");
        expect(page.headers.get("X-Frame-Options")).toBe("DENY");
        expect(page.headers.get("Referrer-Policy")).toBe("same-origin");
        expect(page.headers.get("X-Content-Type-Options")).toBe("nosniff");
        expect(page.headers.get("Cache-Control")).toBe("no-store");
      }
      expect(pages.map((p) => p.status)).toEqual([200, 200, 200, 200, 200, 403, 303]);
    },
  );
});

describe("dashboard: members", () => {
  it(
    "an invited member signs in from the invitation; once removed, their keys answer 403 KEY_ACCOUNT_MISMATCH " +
      "and their session ends",
    async () => {
      const owner = await signedUpOwner("team");
      const memberEmail = uniqueEmail("member");
      const invited = await owner.browser.submit("/dashboard/members", "/dashboard/members", {
        email: memberEmail,
        role: "member",
      });
      expect(invited.status).toBe(200);
      const member = new Browser();
      expect((await followLatestLink(member, memberEmail)).status).toBe(303);
      const key = await createSecretKey(member);
      expect((await accountCall(key)).status).toBe(200);

      // A member cannot manage members.
      const page = await member.fetch("/dashboard/members");
      const html = await page.text();
      expect(html).toContain(memberEmail);
      const ownerId = /\/dashboard\/members\/(usr_[0-9A-Za-z]+)\/remove/.exec(
        await (await owner.browser.fetch("/dashboard/members")).text(),
      )![1]!;
      expect((await member.submit("/dashboard/members", `/dashboard/members/${ownerId}/remove`)).status).toBe(403);

      const members = await (await owner.browser.fetch("/dashboard/members")).text();
      const memberId = new RegExp(
        `${memberEmail.replace(/[.]/g, "\\.")}</td><td>member</td><td>.*?/dashboard/members/(usr_[0-9A-Za-z]+)/role`,
      ).exec(members)![1]!;
      const removed = await owner.browser.submit("/dashboard/members", `/dashboard/members/${memberId}/remove`);
      expect(removed.status).toBe(200);
      const refused = await accountCall(key);
      expect([refused.status, refused.body.error.code]).toEqual([403, "KEY_ACCOUNT_MISMATCH"]);
      const after = await member.fetch("/dashboard/keys");
      expect([after.status, after.headers.get("Location")]).toEqual([
        303,
        "/dashboard/sign-in?next=%2Fdashboard%2Fkeys",
      ]);
    },
  );

  // Invited again, pending and accepted, on the API, the browser endpoints and /mcp: removed-member-keys.test.ts.

  it("an invitation marks the keys of someone the operator detached: 403 for good, accepted or not", async () => {
    const ownerEmail = uniqueEmail("operated");
    const { id } = await admin<{ id: string }>("POST", "/accounts", { email: ownerEmail, email_verified: true });
    await admin("POST", `/accounts/${id}/members`, { email: ownerEmail });
    const memberEmail = uniqueEmail("detached");
    const { user_id } = await admin<{ user_id: string }>("POST", `/accounts/${id}/members`, { email: memberEmail });
    const { key } = await admin<{ key: string }>("POST", `/accounts/${id}/keys/secret`, {
      user_id,
      scopes: ["account"],
    });
    await admin("DELETE", `/accounts/${id}/members/${user_id}`);
    const codeOf = async () => (await accountCall(key)).body.error?.code;
    expect(await codeOf()).toBe("KEY_ACCOUNT_MISMATCH");
    const owner = new Browser();
    await signInByMail(owner, ownerEmail);
    const invited = await owner.submit("/dashboard/members", "/dashboard/members", {
      email: memberEmail,
      role: "member",
    });
    expect(invited.status).toBe(200);
    expect(await codeOf()).toBe("KEY_ACCOUNT_MISMATCH");
    expect((await followLatestLink(new Browser(), memberEmail)).status).toBe(303);
    expect(await codeOf()).toBe("KEY_ACCOUNT_MISMATCH");
  });

  it("the last owner cannot be removed (422)", async () => {
    const owner = await signedUpOwner("solo");
    const ownerId = /\/dashboard\/members\/(usr_[0-9A-Za-z]+)\/remove/.exec(
      await (await owner.browser.fetch("/dashboard/members")).text(),
    )![1]!;
    const refused = await owner.browser.submit("/dashboard/members", `/dashboard/members/${ownerId}/remove`);
    expect(refused.status).toBe(422);
    expect((await owner.browser.fetch("/dashboard/keys")).status).toBe(200);
  });
});

describe("dashboard: signing out", () => {
  it("sign out ends this browser's session; sign out everywhere ends every session of the user", async () => {
    const first = await signedUpOwner("everywhere");
    const second = new Browser();
    const third = new Browser();
    await second.submit("/dashboard/sign-in", "/dashboard/sign-in", { email: first.email });
    await followLatestLink(second, first.email, 3);
    await third.submit("/dashboard/sign-in", "/dashboard/sign-in", { email: first.email });
    await followLatestLink(third, first.email, 4);
    expect((await second.fetch("/dashboard/keys")).status).toBe(200);

    const out = await third.submit("/dashboard/keys", "/dashboard/sign-out");
    expect([out.status, out.headers.get("Location")]).toEqual([303, "/dashboard/sign-in"]);
    expect((await third.fetch("/dashboard/keys")).status).toBe(303);
    expect((await second.fetch("/dashboard/keys")).status).toBe(200);

    const everywhere = await first.browser.submit("/dashboard/account", "/dashboard/sign-out-everywhere");
    expect(everywhere.status).toBe(303);
    for (const browser of [first.browser, second])
      expect((await browser.fetch("/dashboard/keys")).headers.get("Location")).toBe(
        "/dashboard/sign-in?next=%2Fdashboard%2Fkeys",
      );
  });
});
