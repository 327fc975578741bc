import { describe, expect, it } from "vitest";
import { connect, initializeBody, mcpHeaders } from "../mcp-client";
import { admin, base, newAccount } from "./stack";

interface LedgerRow {
  kind: string;
  plan_delta: number;
  pack_delta: number;
  note: string | null;
  request_id: string | null;
}

const ledger = async (key: string) => {
  const response = await fetch(`${base}/api/v1/account/ledger`, { headers: { Authorization: `Bearer ${key}` } });
  return ((await response.json()) as { data: { entries: LedgerRow[] } }).data.entries;
};
const shape = (rows: LedgerRow[]) =>
  rows.map(({ kind, plan_delta, pack_delta, note }) => ({ kind, plan_delta, pack_delta, note }));

/** The tool protocol at /mcp of the running local API, with the SDK's own client over real HTTP. */
describe("tool protocol (POST /mcp)", () => {
  it("lists the tools and answers a lookup, a quote and the account with the HTTP meta", async () => {
    const { secretKey } = await newAccount();
    const { client, tool, close } = await connect(base, secretKey, fetch, { paceMs: 250 });
    const { tools } = await client.listTools();
    // 20 before address autocomplete joined (issue 52): its `autocomplete_address` is the 21st.
    expect(tools.length).toBe(21);
    expect(tools.map((t) => t.name)).toContain("autocomplete_address");
    expect(await tool("verify_email", { email: "deliverable@service.test" })).toMatchObject({
      isError: false,
      data: { deliverable: "deliverable" },
      meta: { credits_used: 0, credits_remaining: 100, cache_hit: false, request_id: expect.stringMatching(/^req_/) },
    });
    expect(
      (await tool("quote", { tool: "lookup_email_domain", arguments: { domain: "acme.example" } })).data,
    ).toMatchObject({ max_credits: 1 });
    expect(await tool("get_account")).toMatchObject({
      data: { balance: { available: 100 } },
      meta: { credits_used: 0, credits_remaining: 100 },
    });
    await close();
  });

  it("bills a tool call as the same HTTP call: same answer, meta and ledger rows", async () => {
    const [viaTool, viaHttp] = [await newAccount(), await newAccount()];
    const { tool, close } = await connect(base, viaTool.secretKey);
    const answer = await tool("lookup_email_domain", { domain: "acme.example" });
    const http = (await (
      await fetch(`${base}/api/v1/email/domain/acme.example`, {
        headers: { Authorization: `Bearer ${viaHttp.secretKey}` },
      })
    ).json()) as {
      data: unknown;
      meta: Record<string, unknown>;
    };
    expect(answer.data).toEqual(http.data);
    expect({ ...answer.meta, request_id: null }).toEqual({ ...http.meta, request_id: null });
    expect(answer.meta).toMatchObject({ credits_used: 1, credits_remaining: 99 });
    expect(shape(await ledger(viaTool.secretKey))).toEqual(shape(await ledger(viaHttp.secretKey)));
    await close();
  });

  it("refuses before the session: 401 without a key, 403 EMAIL_NOT_VERIFIED for an unconfirmed account", async () => {
    const none = await fetch(`${base}/mcp`, { method: "POST", headers: mcpHeaders(), body: initializeBody });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: "UNAUTHENTICATED" } });

    const account = await admin<{ id: string }>("POST", "/accounts", {
      email: `mcp-${Date.now()}@example.com`,
      email_verified: false,
      plan: "free",
    });
    const member = await admin<{ user_id: string }>("POST", `/accounts/${account.id}/members`, {
      email: `mcp-m-${Date.now()}@example.com`,
    });
    const { key } = await admin<{ key: string }>("POST", `/accounts/${account.id}/keys/secret`, {
      user_id: member.user_id,
    });
    const refused = await fetch(`${base}/mcp`, { method: "POST", headers: mcpHeaders(key), body: initializeBody });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "EMAIL_NOT_VERIFIED" } });
  });

  it("answers refusals after the session as tool errors: scope, credits and max_credits", async () => {
    const { accountId, userId, secretKey } = await newAccount();
    const ipOnly = await admin<{ key: string }>("POST", `/accounts/${accountId}/keys/secret`, {
      user_id: userId,
      scopes: ["ip"],
    });
    const scoped = await connect(base, ipOnly.key);
    expect(await scoped.tool("verify_email", { email: "deliverable@service.test" })).toMatchObject({
      isError: true,
      error: { code: "KEY_SCOPE_DENIED" },
    });
    await scoped.close();

    const { tool, close } = await connect(base, secretKey);
    expect(await tool("lookup_email_domain", { domain: "acme.example", max_credits: 0 })).toMatchObject({
      isError: true,
      error: { code: "MAX_CREDITS_EXCEEDED" },
    });
    expect((await ledger(secretKey)).filter((r) => r.kind === "charge")).toEqual([]);
    await close();

    const empty = await admin<{ id: string }>("POST", "/accounts", {
      email: `mcp-e-${Date.now()}@example.com`,
      email_verified: true,
      plan: "enterprise",
    });
    const holder = await admin<{ user_id: string }>("POST", `/accounts/${empty.id}/members`, {
      email: `mcp-eh-${Date.now()}@example.com`,
    });
    const broke = await admin<{ key: string }>("POST", `/accounts/${empty.id}/keys/secret`, {
      user_id: holder.user_id,
    });
    const poor = await connect(base, broke.key);
    expect(await poor.tool("lookup_email_domain", { domain: "acme.example" })).toMatchObject({
      isError: true,
      error: { code: "INSUFFICIENT_CREDITS" },
    });
    await poor.close();
  });
});
