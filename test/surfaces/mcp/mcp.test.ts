import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { registeredProducts } from "../../../src/products/registry";
import { toolNameOf } from "../../../src/http/operation-ids";
import { freezeClock } from "../../frozen-clock";
import { bearer, BASE, call, createAccount, json } from "../../helpers";
import { connect, initializeBody, mcpHeaders } from "../../mcp-client";

const workerFetch: typeof fetch = (input, init) => SELF.fetch(input instanceof URL ? input.href : input, init);
const mcp = (key: string) => connect(BASE, key, workerFetch, { paceMs: 250 });

interface LedgerRow {
  kind: string;
  plan_delta: number;
  pack_delta: number;
  request_id: string | null;
  note: string | null;
  product: string | null;
}
const ledger = async (key: string) =>
  (await call<{ entries: LedgerRow[] }>("/api/v1/account/ledger", bearer(key))).body.data.entries;

const TOOLS = [
  "check_consistency",
  "get_account",
  "get_bulk_results",
  "get_bulk_run",
  "get_ledger",
  "list_monitors",
  "lookup_email_domain",
  "lookup_entities",
  "lookup_entity",
  "lookup_ip",
  "lookup_ips",
  "lookup_phone",
  "lookup_phones",
  "quote",
  "run_monitor",
  "start_bulk_run",
  "verify_address",
  "verify_addresses",
  "verify_email",
  "verify_emails",
];

// Tool calls are spaced 250 ms apart (5 requests a second per key): the longer tests need more than 5 s.
describe("POST /mcp: tools", { timeout: 30_000 }, () => {
  it("lists every tool with input and output schemas and annotations", async () => {
    const { client, close } = await mcp((await createAccount()).key);
    const { tools } = await client.listTools();
    // The tools named in the product notes, and any a product registered later declares on its lookups.
    const declared = registeredProducts().flatMap((p) =>
      (p.lookups?.routes ?? []).flatMap((r) => (r.tool ? toolNameOf(r.operationId) : [])),
    );
    expect(tools.map((t) => t.name).sort()).toEqual([...new Set([...TOOLS, ...declared])].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.description!.length).toBeGreaterThan(60);
      expect(typeof tool.annotations?.readOnlyHint).toBe("boolean");
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.verify_email!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(byName.lookup_ip!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: false });
    expect(byName.lookup_phone!.annotations).toMatchObject({ openWorldHint: true });
    expect(byName.verify_addresses!.annotations).toMatchObject({ openWorldHint: true });
    expect(byName.get_account!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    // An agent reads the tool, not the docs: every lookup says what a source's coverage means.
    for (const name of ["verify_email", "lookup_phone", "lookup_ip", "verify_address", "lookup_entity"]) {
      expect(byName[name]!.description, name).toContain("`sample` (synthetic rows or an offline stand-in;");
      expect(byName[name]!.description, name).toContain("`none` (a live check or partner asked without an answer");
    }
    expect(Object.keys(byName.verify_email!.inputSchema.properties!)).toEqual(
      expect.arrayContaining(["email", "refresh", "max_age", "timeout", "max_credits"]),
    );
    await close();
  });

  it("answers each lookup with the HTTP route's data and meta", async () => {
    const acct = await createAccount({ pack: 20 });
    const { tool, close } = await mcp(acct.key);
    const email = await tool("verify_email", { email: "deliverable@service.test" });
    expect(email).toMatchObject({
      isError: false,
      data: { deliverable: "deliverable", risk_score: 0 },
      meta: { credits_used: 0, credits_remaining: 20, cache_hit: false },
    });
    expect(email.meta.request_id).toMatch(/\w+/);
    // The structured answer carries each source's coverage, as the HTTP answer does.
    expect(email.data.sources).toEqual([{ dataset: "test-addresses", version: expect.any(String), coverage: "full" }]);
    const emails = await tool<{ results: unknown[] }>("verify_emails", {
      emails: ["deliverable@service.test", "undeliverable@service.test"],
    });
    expect(emails.data.results).toHaveLength(2);
    expect(emails.meta).toMatchObject({ requested: 2, processed: 2, credits_used: 0, stopped_reason: null });
    expect((await tool("lookup_email_domain", { domain: "acme.example" })).data).toMatchObject({ mx_found: true });
    const phone = await tool("lookup_phone", { phone: "12", country: "FR" });
    expect(phone.error).toBeUndefined();
    expect(phone.data).toMatchObject({ valid: false });
    expect((await tool<{ results: unknown[] }>("lookup_phones", { phones: ["12", "34"] })).data.results).toHaveLength(
      2,
    );
    expect((await tool("lookup_ip", { ip: "192.0.2.1" })).isError).toBe(false);
    expect(
      (await tool<{ results: unknown[] }>("lookup_ips", { ips: ["192.0.2.1", "198.51.100.7"] })).data.results,
    ).toHaveLength(2);
    expect((await tool("verify_address", { address: "1 Main Street, 00000 Nowhere", country: "ZZ" })).isError).toBe(
      false,
    );
    expect(
      (await tool<{ results: unknown[] }>("verify_addresses", { addresses: ["1 Main Street"], country: "ZZ" })).data
        .results,
    ).toHaveLength(1);
    expect((await tool("lookup_entity", { identifier: "5493001KJTIIGC8Y1R12" })).data).toMatchObject({ found: false });
    expect(
      (await tool<{ results: unknown[] }>("lookup_entities", { identifiers: ["5493001KJTIIGC8Y1R12"] })).data.results,
    ).toHaveLength(1);
    expect((await tool("check_consistency", { email: "deliverable@service.test", ip: "192.0.2.1" })).isError).toBe(
      false,
    );
    await close();
  });

  it("answers the account, ledger, bulk and monitor tools", async () => {
    const acct = await createAccount({ pack: 5 });
    const { tool, close } = await mcp(acct.key);
    expect(await tool("get_account")).toMatchObject({
      data: { id: acct.accountId, balance: { available: 5 } },
      meta: { credits_used: 0, credits_remaining: 5 },
    });
    expect((await tool<{ entries: LedgerRow[] }>("get_ledger")).data.entries[0]).toMatchObject({
      kind: "pack_credit",
      pack_delta: 5,
      product: null,
    });

    const started = await tool<{ job: { id: number; status: string } }>("start_bulk_run", {
      product: "email",
      values: ["deliverable@service.test", "risky@service.test"],
    });
    expect(started.isError).toBe(false);
    const jobId = started.data.job.id;
    expect((await tool("get_bulk_run", { product: "email", job_id: jobId })).data).toMatchObject({
      job: { id: jobId },
    });
    const results = await tool<{ csv: string }>("get_bulk_results", { product: "email", job_id: jobId });
    if (results.isError) expect(results.error.code).toBe("RESULTS_NOT_READY");
    else expect(results.data.csv.split("\n")[0]).toContain("index");

    const created = await call<{ monitor: { id: number } }>(
      "/api/v1/entity/monitors",
      json(
        { name: "suppliers", cadence: "weekly", identifiers: ["5493001KJTIIGC8Y1R12"] },
        { Authorization: `Bearer ${acct.key}` },
      ),
    );
    const listed = await tool<{ monitors: { id: number }[] }>("list_monitors", { monitor_kind: "entity" });
    expect(listed.data.monitors.map((m) => m.id)).toEqual([created.body.data.monitor.id]);
    expect(listed.meta).toMatchObject({ page: 1, total: 1 });
    const ran = await tool<{ summary: { credits_used: number } }>("run_monitor", {
      monitor_kind: "entity",
      monitor_id: created.body.data.monitor.id,
      max_credits: 1,
    });
    expect(ran).toMatchObject({ isError: false, data: { summary: { credits_used: 0 } } });
    await close();
  });
});

describe("POST /mcp: spend safety and billing", { timeout: 30_000 }, () => {
  it("quotes from the price rules and the repeat window, and max_credits refuses before anything is held", async () => {
    const acct = await createAccount({ pack: 3 });
    const { tool, close } = await mcp(acct.key);
    const quote = await tool("quote", {
      tool: "verify_emails",
      arguments: { emails: ["a@acme.example", "A@acme.example", "deliverable@service.test"] },
    });
    expect(quote).toMatchObject({
      isError: false,
      data: { tool: "verify_emails", values: 3, distinct: 2, free: 1, chargeable: 1, max_credits: 1 },
      meta: { credits_used: 0 },
    });
    expect(
      (await tool("quote", { tool: "lookup_email_domain", arguments: { domain: "acme.example" } })).data,
    ).toMatchObject({ max_credits: 1 });

    const refused = await tool("lookup_email_domain", { domain: "acme.example", max_credits: 0 });
    expect(refused).toMatchObject({
      isError: true,
      error: { code: "MAX_CREDITS_EXCEEDED", quote: { max_credits: 1 } },
    });
    expect((await ledger(acct.key)).map((r) => r.kind)).toEqual(["pack_credit"]);

    expect(await tool("lookup_email_domain", { domain: "acme.example", max_credits: 1 })).toMatchObject({
      meta: { credits_used: 1, credits_remaining: 2 },
    });
    // Now a repeat: free, so the quote says 0 and max_credits 0 lets it through.
    expect(
      (await tool("quote", { tool: "lookup_email_domain", arguments: { domain: "acme.example" } })).data,
    ).toMatchObject({ free: 1, max_credits: 0 });
    expect(await tool("lookup_email_domain", { domain: "acme.example", max_credits: 0 })).toMatchObject({
      meta: { credits_used: 0, cache_hit: true },
    });
    const invalid = await tool("quote", { tool: "verify_emails", arguments: { emails: [] } });
    expect(invalid).toMatchObject({ isError: true, error: { code: "VALIDATION_FAILED" } });
    expect(Object.keys(invalid.error.errors!)).toEqual(["emails"]);
    await close();
  });

  it("bills a tool call exactly as the same HTTP call: same meta, same ledger rows", async () => {
    const viaTool = await createAccount({ pack: 10 });
    const viaHttp = await createAccount({ pack: 10 });
    const { tool, close } = await mcp(viaTool.key);
    const answer = await tool("lookup_email_domain", { domain: "acme.example" });
    const http = await call("/api/v1/email/domain/acme.example", bearer(viaHttp.key));
    expect(answer.data).toEqual(http.body.data);
    const { request_id: toolId, ...toolMeta } = answer.meta;
    const { request_id: _httpId, ...httpMeta } = http.body.meta;
    expect(toolMeta).toEqual(httpMeta);
    const shape = (rows: LedgerRow[]) =>
      rows.map(({ kind, plan_delta, pack_delta, note }) => ({ kind, plan_delta, pack_delta, note }));
    const [toolRows, httpRows] = [await ledger(viaTool.key), await ledger(viaHttp.key)];
    expect(shape(toolRows)).toEqual(shape(httpRows));
    expect(toolRows[0]).toMatchObject({ kind: "charge", pack_delta: -1, request_id: toolId });
    await close();
  });
});

describe("POST /mcp: refusals", { timeout: 30_000 }, () => {
  it("answers a missing or unknown key with 401 before any session", async () => {
    for (const key of [undefined, "sk_live_unknownunknownunknownunknown"]) {
      const response = await SELF.fetch(`${BASE}/mcp`, {
        method: "POST",
        headers: mcpHeaders(key),
        body: initializeBody,
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ success: false, error: { code: "UNAUTHENTICATED" } });
    }
  });

  it(
    "refuses a key of an unconfirmed account with 403 EMAIL_NOT_VERIFIED, and the SDK client cannot " + "connect",
    async () => {
      const acct = await createAccount({ verified: false });
      const response = await SELF.fetch(`${BASE}/mcp`, {
        method: "POST",
        headers: mcpHeaders(acct.key),
        body: initializeBody,
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ success: false, error: { code: "EMAIL_NOT_VERIFIED" } });
      await expect(mcp(acct.key)).rejects.toThrow(/403|EMAIL_NOT_VERIFIED/);
    },
  );

  it("refuses a key off its source allowlist with 403 KEY_IP_NOT_ALLOWED", async () => {
    const acct = await createAccount({ key: { allowed_ips: ["203.0.113.0/24"] } });
    const response = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: { ...mcpHeaders(acct.key), "CF-Connecting-IP": "198.51.100.1" },
      body: initializeBody,
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: "KEY_IP_NOT_ALLOWED" } });
  });

  it("answers a tool outside the key's scopes as a tool error KEY_SCOPE_DENIED, quote too", async () => {
    const acct = await createAccount({ key: { scopes: ["ip"] } });
    const { tool, close } = await mcp(acct.key);
    expect(await tool("verify_email", { email: "deliverable@service.test" })).toMatchObject({
      isError: true,
      error: { code: "KEY_SCOPE_DENIED" },
    });
    expect(await tool("quote", { tool: "verify_email", arguments: { email: "a@acme.example" } })).toMatchObject({
      isError: true,
      error: { code: "KEY_SCOPE_DENIED" },
    });
    expect(await tool("get_account")).toMatchObject({ isError: true, error: { code: "KEY_SCOPE_DENIED" } });
    expect((await tool("lookup_ip", { ip: "192.0.2.1" })).isError).toBe(false);
    await close();
  });

  it("counts a tool call once against the key's 5 a second, and answers a call over it as RATE_LIMITED", async () => {
    const acct = await createAccount();
    const clock = freezeClock();
    try {
      const { tool, close } = await connect(BASE, acct.key, workerFetch);
      // initialize and tools/list took 2 of the burst of 5; 3 tool calls fit only if each counts once.
      const fit = await Promise.all([1, 2, 3].map(() => tool("get_account")));
      expect(fit.map((a) => a.isError)).toEqual([false, false, false]);
      const over = await Promise.all([1, 2, 3, 4].map(() => tool("get_account")));
      expect(over.map((a) => a.isError)).toEqual([true, true, true, true]);
      expect(over[0]!.error).toMatchObject({ code: "RATE_LIMITED", retry_after_seconds: expect.any(Number) });
      await close();
    } finally {
      clock.thaw();
    }
  });

  it("answers an empty balance as a tool error INSUFFICIENT_CREDITS, nothing charged", async () => {
    const acct = await createAccount({ plan: "enterprise" });
    const { tool, close } = await mcp(acct.key);
    const refused = await tool("lookup_email_domain", { domain: "acme.example" });
    expect(refused).toMatchObject({ isError: true, error: { code: "INSUFFICIENT_CREDITS" } });
    expect(await ledger(acct.key)).toEqual([]);
    await close();
  });

  it("answers invalid arguments with VALIDATION_FAILED and field errors, and GET /mcp with 405", async () => {
    const acct = await createAccount();
    const { client, close } = await mcp(acct.key);
    const result = await client.callTool({ name: "verify_emails", arguments: { emails: "not a list" } });
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "VALIDATION_FAILED", errors: { emails: [expect.any(String)] } } },
    });
    await close();
    const get = await SELF.fetch(`${BASE}/mcp`, { headers: mcpHeaders(acct.key) });
    expect(get.status).toBe(405);
    expect(get.headers.get("Allow")).toBe("POST");
  });
});
