import { SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { admin, BASE, bearer, call } from "../../helpers";
import { initializeBody, mcpHeaders } from "../../mcp-client";
import { Browser, createSecretKey, followLatestLink, signedUpOwner, uniqueEmail } from "../../dashboard-browser";

// Each sign-in waits for its mail to reach the local catcher (about a second through the queue and the sidecar).
vi.setConfig({ testTimeout: 40_000 });

/**
 * A member removed on the dashboard: every key they held answers 403 KEY_ACCOUNT_MISMATCH for good (spec's error
 * table), on each surface in its order of checks — not 401 as a revocation would — while invited again, and once they
 * accept; only keys a person revoked stay 401 (docs/authentication.md, docs/dashboard.md "Removing a member").
 */

const SHOP = "https://shop.example";

/** `GET /account` with the key: its status and code. */
async function secretAnswer(key: string) {
  const { status, body } = await call("/api/v1/account", bearer(key, { "CF-Connecting-IP": "198.51.100.91" }));
  return [status, body.error?.code ?? null];
}

/** The browser endpoint with a publishable key, from the key's allowed site. */
async function publishableAnswer(key: string) {
  const { status, body } = await call("/api/v1/email/public", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: SHOP, "CF-Connecting-IP": "198.51.100.92" },
    body: JSON.stringify({ key, email: "deliverable@service.test" }),
  });
  return [status, body.error?.code ?? null];
}

/** The tool protocol's first message with the key: refusals come before any session. */
async function mcpAnswer(key: string) {
  const response = await SELF.fetch(`${BASE}/mcp`, { method: "POST", headers: mcpHeaders(key), body: initializeBody });
  const body = (await response.json()) as { error?: { code?: string } };
  return [response.status, body.error?.code ?? null];
}

async function createPublishableKey(browser: Browser) {
  const response = await browser.submit("/dashboard/keys", "/dashboard/keys/publishable", {
    allowed_domains: "shop.example",
  });
  const key = /id="new-key">(pk_live_[0-9A-Za-z]+)</.exec(await response.text())?.[1];
  if (!key) throw new Error(`no publishable key shown (${response.status})`);
  return key;
}

/** An owner and an accepted member holding a secret key, a publishable key and a secret key they revoked. */
async function teamWithMemberKeys(label: string) {
  const owner = await signedUpOwner(label);
  const email = uniqueEmail(`${label}-member`);
  const invite = () => owner.browser.submit("/dashboard/members", "/dashboard/members", { email, role: "member" });
  expect((await invite()).status).toBe(200);
  const member = new Browser();
  expect((await followLatestLink(member, email)).status).toBe(303);
  const keys = {
    secret: await createSecretKey(member),
    publishable: await createPublishableKey(member),
    revoked: await createSecretKey(member),
  };
  const page = await (await member.fetch("/dashboard/keys")).text();
  const revokedId = new RegExp(
    `${keys.revoked.slice(-4)}</code>.*?/dashboard/keys/(key_[0-9A-Za-z]+)/revoke`,
    "s",
  ).exec(page)?.[1];
  expect((await member.submit("/dashboard/keys", `/dashboard/keys/${revokedId}/revoke`)).status).toBe(200);
  const members = await (await owner.browser.fetch("/dashboard/members")).text();
  const userId = new RegExp(
    `${email.replace(/[.]/g, "\\.")}</td><td>member</td><td>.*?/dashboard/members/(usr_[0-9A-Za-z]+)/role`,
  ).exec(members)![1]!;
  const remove = () => owner.browser.submit("/dashboard/members", `/dashboard/members/${userId}/remove`);
  return { owner, email, member, keys, userId, invite, remove };
}

const answers = async (keys: { secret: string; publishable: string }) => ({
  secret: await secretAnswer(keys.secret),
  publishable: await publishableAnswer(keys.publishable),
  mcp: await mcpAnswer(keys.secret),
});

const MISMATCH = [403, "KEY_ACCOUNT_MISMATCH"];

describe("dashboard: a removed member's keys", () => {
  it("answer 403 KEY_ACCOUNT_MISMATCH on the API, the browser endpoint and /mcp; a revoked one stays 401", async () => {
    const team = await teamWithMemberKeys("departed");
    expect(await answers(team.keys)).toEqual({ secret: [200, null], publishable: [200, null], mcp: [200, null] });
    expect((await team.remove()).status).toBe(200);
    expect(await answers(team.keys)).toEqual({ secret: MISMATCH, publishable: MISMATCH, mcp: MISMATCH });
    expect(await secretAnswer(team.keys.revoked)).toEqual([401, "UNAUTHENTICATED"]);
    // Their sessions end as before.
    expect((await team.member.fetch("/dashboard/keys")).status).toBe(303);
  });

  it("stay 403 KEY_ACCOUNT_MISMATCH while invited again and after they accept; their new keys work", async () => {
    const team = await teamWithMemberKeys("returning");
    expect((await team.remove()).status).toBe(200);
    expect((await team.invite()).status).toBe(200);
    expect(await answers(team.keys)).toEqual({ secret: MISMATCH, publishable: MISMATCH, mcp: MISMATCH });
    const returning = new Browser();
    expect((await followLatestLink(returning, team.email, 2)).status).toBe(303);
    expect(await answers(team.keys)).toEqual({ secret: MISMATCH, publishable: MISMATCH, mcp: MISMATCH });
    expect(await secretAnswer(team.keys.revoked)).toEqual([401, "UNAUTHENTICATED"]);
    const fresh = { secret: await createSecretKey(returning), publishable: await createPublishableKey(returning) };
    expect(await answers(fresh)).toEqual({ secret: [200, null], publishable: [200, null], mcp: [200, null] });
  });

  it("stay 403 when the operator adds the member back: only keys the operator detached work again", async () => {
    const team = await teamWithMemberKeys("readded");
    expect((await team.remove()).status).toBe(200);
    const { id } = (await call<{ id: string }>("/api/v1/account", bearer(await freshOwnerKey(team)))).body.data;
    await admin("POST", `/accounts/${id}/members`, { email: team.email });
    expect(await secretAnswer(team.keys.secret)).toEqual(MISMATCH);
  });

  it("show on the keys page as a departed member's, not as revoked by someone", async () => {
    const team = await teamWithMemberKeys("listed");
    expect((await team.remove()).status).toBe(200);
    const page = await (await team.owner.browser.fetch("/dashboard/keys")).text();
    const row = (key: string) => new RegExp(`${key.slice(-4)}</code>.*?</tr>`, "s").exec(page)?.[0] ?? "";
    expect(row(team.keys.secret)).toMatch(/holder left the account \d{4}-\d\d-\d\d \d\d:\d\d/);
    expect(row(team.keys.secret)).not.toContain("revoked");
    expect(row(team.keys.publishable)).toMatch(/holder left the account/);
    expect(row(team.keys.revoked)).toMatch(/revoked \d{4}-/);
    expect(row(team.keys.revoked)).not.toContain("holder left");
    // The operator's list says the same.
    const { id } = (await call<{ id: string }>("/api/v1/account", bearer(await freshOwnerKey(team)))).body.data;
    const { keys } = await admin<{
      keys: { hint: string; revoked_at: string | null; holder_left_at: string | null }[];
    }>("GET", `/accounts/${id}/keys`);
    const view = (key: string) => keys.find((k) => k.hint.endsWith(key.slice(-4)));
    expect(view(team.keys.secret)).toMatchObject({ revoked_at: null, holder_left_at: expect.any(String) });
    expect(view(team.keys.revoked)).toMatchObject({ revoked_at: expect.any(String), holder_left_at: null });
  });
});

/** A secret key of the owner's, made on the keys page. */
const freshOwnerKey = (team: { owner: { browser: Browser } }) => createSecretKey(team.owner.browser);
