import { describe, expect, it, vi } from "vitest";
import { admin, call } from "../../../helpers";
import { Browser } from "../../../dashboard-browser";

vi.setConfig({ testTimeout: 30_000 });
let sequence = 0;
const address = () => `directory-${Date.now()}-${++sequence}@example.com`;
const adminHeaders = { Authorization: "Bearer test-admin-token", "Content-Type": "application/json" };

describe("operator directory: accounts by email, keys and members of an account, sign-in links", () => {
  it("finds an account by its email (any case); 404 when none", async () => {
    const email = address();
    const { id } = await admin<{ id: string }>("POST", "/accounts", { email, email_verified: true });
    expect(await admin("GET", `/accounts?email=${encodeURIComponent(email.toUpperCase())}`)).toMatchObject({
      id,
      email,
      email_verified: true,
    });
    const missing = await call(`/admin/v1/accounts?email=${encodeURIComponent(address())}`, { headers: adminHeaders });
    expect([missing.status, missing.body.error.code]).toEqual([404, "NOT_FOUND"]);
  });

  it(
    "lists an account's members with roles (its own address is the owner) and its keys, revoked ones " + "too",
    async () => {
      const email = address();
      const { id } = await admin<{ id: string }>("POST", "/accounts", { email, email_verified: true });
      const owner = await admin<{ user_id: string }>("POST", `/accounts/${id}/members`, { email });
      const member = await admin<{ user_id: string }>("POST", `/accounts/${id}/members`, { email: address() });
      const key = await admin<{ id: string }>("POST", `/accounts/${id}/keys/secret`, {
        user_id: member.user_id,
        scopes: ["account"],
      });
      await admin("DELETE", `/keys/${key.id}`);
      const { members } = await admin<{ members: { user_id: string; role: string }[] }>(
        "GET",
        `/accounts/${id}/members`,
      );
      expect(members.map((m) => [m.user_id, m.role])).toEqual([
        [owner.user_id, "owner"],
        [member.user_id, "member"],
      ]);
      const { keys } = await admin<{ keys: { id: string; revoked_at: string | null; user_id: string }[] }>(
        "GET",
        `/accounts/${id}/keys`,
      );
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatchObject({ id: key.id, user_id: member.user_id });
      expect(keys[0]!.revoked_at).not.toBeNull();
    },
  );

  it("issues a member a sign-in link that opens the dashboard once; not for a non-member (422)", async () => {
    const email = address();
    const { id } = await admin<{ id: string }>("POST", "/accounts", { email, email_verified: true });
    await admin("POST", `/accounts/${id}/members`, { email });
    const { url } = await admin<{ url: string }>("POST", `/accounts/${id}/sign-in-link`, { email });
    const path = new URL(url).pathname;
    const browser = new Browser();
    expect((await browser.submit(path, path)).status).toBe(303);
    expect((await browser.fetch("/dashboard/keys")).status).toBe(200);
    const refused = await call(`/admin/v1/accounts/${id}/sign-in-link`, {
      method: "POST",
      headers: adminHeaders,
      body: JSON.stringify({ email: address() }),
    });
    expect([refused.status, refused.body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
  });
});
