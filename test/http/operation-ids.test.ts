import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { productOperationId, toolNameOf } from "../../src/http/operation-ids";
import { BASE, createAccount } from "../helpers";
import { connect } from "../mcp-client";

interface Document {
  paths: Record<string, Record<string, { operationId?: string }>>;
  webhooks: Record<string, Record<string, { operationId?: string }>>;
}

const served = async () =>
  (await (await SELF.fetch(`${BASE}/api/v1/openapi.json`)).json()) as Document & { servers: { url: string }[] };

/** `METHOD /path` of every operation, by operation id (webhooks under their name). */
async function operations() {
  const doc = await served();
  const all = [
    ...Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => [op.operationId, `${method.toUpperCase()} ${path}`] as const),
    ),
    ...Object.entries(doc.webhooks).flatMap(([name, ops]) =>
      Object.entries(ops).map(([method, op]) => [op.operationId, `${method.toUpperCase()} webhook ${name}`] as const),
    ),
  ];
  return all;
}

describe("operation ids (src/http/operation-ids.ts)", () => {
  it("name every operation once, camelCase and verb first", async () => {
    const all = await operations();
    expect(all.length).toBeGreaterThanOrEqual(141);
    for (const [id, operation] of all) expect(id, operation).toMatch(/^[a-z]+[A-Z][a-zA-Z0-9]*$/);
    const ids = all.map(([id]) => id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it("are the names generators and references already use (stable)", async () => {
    const byId = Object.fromEntries(await operations());
    expect(byId).toMatchObject({
      verifyEmail: "POST /api/v1/email",
      verifyEmails: "POST /api/v1/email/batch",
      verifyEmailPublic: "POST /api/v1/email/public",
      lookupIpInPath: "GET /api/v1/ip/{ip}",
      getAccount: "GET /api/v1/account",
      getLedger: "GET /api/v1/account/ledger",
      startEmailBulkRun: "POST /api/v1/email/bulk",
      listEmailBulkRuns: "GET /api/v1/email/bulk",
      getPhoneBulkResults: "GET /api/v1/phone/bulk/{jobId}/results",
      runEmailDomainMonitor: "POST /api/v1/email/domain-monitors/{monitorId}/run",
      listIpLists: "GET /api/v1/ip/lists",
      receiveDelivery: "POST webhook delivery",
    });
  });

  it("name the tools that stand for operations: snake_case, with the product after the verb", async () => {
    const ids = new Set((await operations()).map(([id]) => id));
    const acct = await createAccount({ pack: 1 });
    const workerFetch: typeof fetch = (input, init) => SELF.fetch(input instanceof URL ? input.href : input, init);
    const { client, close } = await connect(BASE, acct.key, workerFetch);
    const { tools } = await client.listTools();
    await close();
    const unmatched: string[] = [];
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { enum?: string[] }>;
      const families = properties.product?.enum ?? properties.monitor_kind?.enum;
      const camel = tool.name.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase());
      if (families) {
        const [verb, ...rest] = tool.name.split("_");
        const noun = rest.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
        // `list_monitors` stands for `listEmailMonitors`, `listEmailDomainMonitors`, `listPhoneMonitors`...
        for (const family of families) {
          const id = productOperationId(verb!, family, noun);
          if (!ids.has(id)) unmatched.push(`${tool.name} (${family}) -> ${id}`);
        }
      } else if (tool.name !== "quote") {
        expect(toolNameOf(camel)).toBe(tool.name);
        if (!ids.has(camel)) unmatched.push(`${tool.name} -> ${camel}`);
      }
    }
    expect(unmatched).toEqual([]);
  });

  it("serve the origin they were asked at as the document's server", async () => {
    expect((await served()).servers).toEqual([{ url: BASE }]);
    const local = await SELF.fetch("http://127.0.0.1:8787/api/v1/openapi.json");
    expect(((await local.json()) as { servers: unknown }).servers).toEqual([{ url: "http://127.0.0.1:8787" }]);
  });
});
