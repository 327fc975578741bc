import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { registeredProducts } from "../../src/products/registry";
import { TAGS } from "../../src/surfaces/api/openapi";
import {
  GUIDES,
  REFERENCE_SCRIPT_PATH,
  REFERENCE_START_PATH,
  REFERENCE_STYLE_PATH,
} from "../../src/surfaces/api/reference";
import { BASE, createAccount } from "../helpers";
import { connect } from "../mcp-client";

interface Operation {
  tags?: string[];
  description?: string;
  security: Record<string, string[]>[];
}
interface Document {
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string }> };
}

const load = async () => {
  const response = await SELF.fetch("https://api.test/api/v1/openapi.json");
  return { text: await response.clone().text(), doc: (await response.json()) as Document };
};
const operations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, path, op })),
  );

/** The registered products' lookup routes (described by their declarations), as the document spells their paths. */
const LOOKUP_PATHS = new Set(
  registeredProducts().flatMap((p) =>
    (p.lookups?.routes ?? []).map((r) => `/api/v1${r.path.replace(/:(\w+)/g, "{$1}")}`),
  ),
);

describe("the OpenAPI document", () => {
  it(
    "lists one tag per product and the account-wide parts, each described, and tags every operation with one of " +
      "them",
    async () => {
      const { doc } = await load();
      // Every registered product's tag, in registry order, then the account-wide ones.
      const productTags = registeredProducts().map((p) => p.lookups?.tag);
      expect(doc.tags.map((t) => t.name)).toEqual([...productTags, "Account", "Status", "Webhooks"]);
      expect(productTags).toEqual(expect.arrayContaining(["Email", "Phone", "IP", "Address", "Entity", "Consistency"]));
      expect(doc.tags).toEqual(TAGS);
      for (const tag of doc.tags) expect(tag.description.length).toBeGreaterThan(20);
      const names = new Set(doc.tags.map((t) => t.name));
      for (const { id, op } of operations(doc)) expect(op.tags?.length === 1 && names.has(op.tags[0]!), id).toBe(true);
      // Engine routes sit under their product, whatever their route doc's own tag says.
      expect(doc.paths["/api/v1/phone/bulk/{jobId}"]!.get!.tags).toEqual(["Phone"]);
      expect(doc.paths["/api/v1/ip/lists"]!.get!.tags).toEqual(["IP"]);
      // A product served under another's path keeps its own tag, and no tag is left without an operation.
      expect(doc.paths["/api/v1/address/autocomplete/public"]!.post!.tags).toEqual(["Address autocomplete"]);
      const used = new Set(operations(doc).flatMap(({ op }) => op.tags ?? []));
      expect(doc.tags.map((t) => t.name).filter((name) => !used.has(name))).toEqual([]);
      expect(doc.paths["/api/v1/account"]!.get!.tags).toEqual(["Account"]);
    },
  );

  it("names in its intro what each registered product verifies and its sandbox values (their surfaces)", async () => {
    const { doc } = await load();
    const intro = (doc as Document & { info: { description: string } }).info.description;
    const surfaces = registeredProducts().map((p) => p.surface);
    expect(surfaces.flatMap((s) => s.subject ?? [])).toContain("email addresses");
    for (const { subject, sandbox } of surfaces) {
      if (subject) expect(intro).toContain(subject);
      if (sandbox) expect(intro).toContain(sandbox.brief);
    }
  });

  it("declares the secret and publishable schemes (the operator's is not in this document) and uses them", async () => {
    const { doc } = await load();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["publishableKey", "secretKey"]);
    expect(doc.components.securitySchemes.secretKey).toMatchObject({ type: "http", scheme: "bearer" });
    const schemes = new Set(Object.keys(doc.components.securitySchemes));
    for (const { id, op } of operations(doc))
      for (const requirement of op.security)
        for (const name of Object.keys(requirement)) expect(schemes.has(name), id).toBe(true);
    expect(doc.paths["/api/v1/email"]!.post!.security).toEqual([{ secretKey: [] }]);
    expect(doc.paths["/api/v1/email/public"]!.post!.security).toEqual([{ publishableKey: [] }]);
    expect(doc.paths["/api/v1/email/feedback/{provider}/{feedbackKey}"]!.post!.security).toEqual([]);
  });

  it("describes every operation outside the product lookups", async () => {
    const { doc } = await load();
    const missing = operations(doc)
      .filter(({ path, op }) => !LOOKUP_PATHS.has(path) && !op.description?.trim())
      .map(({ id }) => id);
    expect(missing).toEqual([]);
  });

  it("keeps repeated schemas once under components, and every $ref resolves", async () => {
    const { text, doc } = await load();
    const names = Object.keys(doc.components.schemas);
    expect(names.length).toBeGreaterThan(30);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of new Set(refs)) expect(names, ref).toContain(ref);
    // Each component other than Error is used at least twice: a single use would have stayed inline.
    const uses = new Map<string, number>();
    for (const ref of refs) uses.set(ref, (uses.get(ref) ?? 0) + 1);
    for (const name of names.filter((n) => n !== "Error")) expect(uses.get(name) ?? 0, name).toBeGreaterThanOrEqual(2);
    expect(text).not.toContain("$defs");
    // 450 KB with `coverage` on every source and monitor runs' `refresh` (2026-11-27): a jump past the headroom means a
    // repeated subtree stopped being shared. The examples (one real answer per operation, about 105 KB) apart.
    const withoutExamples = JSON.stringify(doc, (key, value) => (key === "examples" ? undefined : value));
    expect(new TextEncoder().encode(withoutExamples).byteLength).toBeLessThan(480_000);
    expect(new TextEncoder().encode(text).byteLength).toBeLessThan(600_000);
  });
});

describe("the webhooks of the document", () => {
  it("show a delivery's headers: both signatures and Webhook-Delivery-Id", async () => {
    const { doc } = (await load()) as unknown as {
      doc: { webhooks: Record<string, { post: { parameters: { name: string; in: string; required: boolean }[] } }> };
    };
    const parameters = doc.webhooks.delivery!.post.parameters;
    expect(parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ["X-Service-Signature-V2", "header", true],
      ["X-Service-Signature", "header", false],
      ["Webhook-Delivery-Id", "header", true],
    ]);
  });
});

describe("GET /docs and GET /llms.txt", () => {
  it("renders the reference from the served document", async () => {
    const response = await SELF.fetch("https://api.test/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('data-document="/api/v1/openapi.json"');
    expect(html).toContain("<title>Verification API reference</title>");
  });

  it("loads its renderer from our own static assets, never from a CDN or another origin", async () => {
    const html = await (await SELF.fetch("https://api.test/docs")).text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => /\bsrc="([^"]*)"/.exec(m[0])?.[1] ?? "inline");
    expect(scripts).toEqual([REFERENCE_SCRIPT_PATH, REFERENCE_START_PATH]);
    const sheets = [...html.matchAll(/<link\b[^>]*\bhref="([^"]*)"/g)].map((m) => m[1]);
    expect(sheets).toEqual([REFERENCE_STYLE_PATH]);
    expect(
      [REFERENCE_SCRIPT_PATH, REFERENCE_STYLE_PATH, REFERENCE_START_PATH].every((p) => p.startsWith("/docs/assets/")),
    ).toBe(true);
    expect(html).not.toMatch(/jsdelivr|unpkg|cdn\.|https?:/);
  });

  it("serves llms.txt: a title, a summary, auth, the reference, the OpenAPI document and every guide", async () => {
    const response = await SELF.fetch("https://api.test/llms.txt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text.startsWith("# Verification API\n\n> ")).toBe(true);
    expect(text).toContain("Authorization: Bearer sk_live_...");
    expect(text).toContain("sk_test_public_sandbox");
    expect(text).toContain("- [API reference](https://api.test/docs)");
    expect(text).toContain("- [OpenAPI 3.1 document](https://api.test/api/v1/openapi.json)");
    for (const [file] of GUIDES) expect(text).toContain(`(https://api.test/docs/${file})`);
    expect(text.match(/^## /gm)).toEqual(["## ", "## ", "## "]);
    // The products and their test values are the registry's, each declared in its folder's surface.
    for (const { surface } of registeredProducts()) {
      if (surface.subject) expect(text).toContain(surface.subject);
      if (surface.sandbox) expect(text).toContain(surface.sandbox.full ?? surface.sandbox.brief);
    }
    expect(text).toContain(`-d '{"email":"deliverable@service.test"}'`);
  });

  it("leads agents to /mcp, docs/agents.md and every tool tools/list answers, in its order", async () => {
    const text = await (await SELF.fetch("https://api.test/llms.txt")).text();
    expect(text).toContain("## Agents");
    expect(text).toContain("- [Tool protocol](https://api.test/mcp): `POST /mcp`");
    expect(text).toContain("- [Agents guide](https://api.test/docs/agents.md)");
    const acct = await createAccount({ pack: 1 });
    const workerFetch: typeof fetch = (input, init) => SELF.fetch(input instanceof URL ? input.href : input, init);
    const { client, close } = await connect(BASE, acct.key, workerFetch);
    const { tools } = await client.listTools();
    const instructions = client.getInstructions() ?? "";
    await close();
    for (const { surface } of registeredProducts())
      if (surface.subject) expect(instructions).toContain(surface.subject);
    const listed = /^- Tools: (.*)$/m.exec(text)![1]!.split(", ");
    expect(listed).toEqual(tools.map((tool) => `\`${tool.name}\``));
    expect(listed).toContain("`quote`");
  });

  it("paints its title and where to go next before the renderer loads (deferred scripts)", async () => {
    const html = await (await SELF.fetch("https://api.test/docs")).text();
    expect(html).toContain("<h1>Verification API reference</h1>");
    expect(html).toContain('<a href="/docs/agents.md">docs/agents.md</a>');
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts).toEqual([
      `<script defer src="${REFERENCE_SCRIPT_PATH}">`,
      `<script defer src="${REFERENCE_START_PATH}">`,
    ]);
  });
});
