import { Hono } from "hono";
import { exampleBody, productSubjects, sandboxValues } from "../../products/intro";
import { registeredProducts } from "../../products/registry";
import type { Guide } from "../../products/surface";
import type { AppEnv } from "../../types";

/**
 * The guides served as Markdown under /docs/ (static assets built from docs/ by scripts/build-widget.mjs): the
 * account-wide ones, each registered product's own in registry order, then the rest.
 */
export const GUIDES: readonly Guide[] = [
  [
    "authentication.md",
    "Authentication",
    "secret, publishable, sandbox and feedback keys; scopes; the order of checks",
  ],
  ["billing.md", "Billing", "what costs credits, repeats, caps, the ledger"],
  ...registeredProducts().flatMap((p) => p.surface.guides ?? []),
  ["jobs-and-webhooks.md", "Bulk runs and webhooks", "jobs, CSV results, signatures, delivery ids"],
  ["widget.md", "Sign-up form widget", ""],
  ["client.md", "TypeScript client", "the npm package"],
  ["agents.md", "Agents", "the tool protocol at /mcp: connecting, tools, prices, refusals"],
  ["offline.md", "Trying the API without internet", ""],
];

/** A tool of the tool protocol at /mcp, as `tools/list` names it. */
export interface ToolName {
  name: string;
  title?: string;
}

/** The registered browser endpoints' paths under /api/v1, in registry order (`email/public`...). */
export const browserEndpoints = (): string[] =>
  registeredProducts().flatMap((p) =>
    (p.lookups?.routes ?? []).filter((r) => r.kind === "browser").map((r) => r.path.slice(1)),
  );

/** The registered browser endpoints as one path: `POST /api/v1/{email,phone,ip,address}/public`. */
function browserPaths(): string {
  const names = browserEndpoints().map((path) => path.replace(/\/public$/, ""));
  return `POST /api/v1/${names.length === 1 ? names[0] : `{${names.join(",")}}`}/public`;
}

/** The first registered product's single lookup with an example body, as the curl line /llms.txt shows. */
function exampleCall(origin: string): string {
  for (const p of registeredProducts()) {
    const route = p.lookups?.routes.find((r) => r.kind === "single" && r.method === "post");
    const body = route && exampleBody(p, route.path);
    if (route && body !== undefined)
      return (
        `curl -s ${origin}/api/v1${route.path} -H "Authorization: Bearer sk_test_public_sandbox" ` +
        `-H "Content-Type: application/json" -d '${JSON.stringify(body)}'`
      );
  }
  return `curl -s ${origin}/api/v1/account -H "Authorization: Bearer sk_test_public_sandbox"`;
}

/**
 * `/llms.txt` (llmstxt.org): what the API is, how to authenticate, where the reference, the tool protocol (with its
 * tools, as `tools/list` answers them) and the guides are.
 */
export function llmsText(origin: string, tools: ToolName[]): string {
  const guide = ([file, title, note]: Guide) => `- [${title}](${origin}/docs/${file})${note ? `: ${note}` : ""}`;
  return (
    `# Verification API

> Verifies ${productSubjects()}. JSON over HTTPS under ${origin}/api/v1; every answer lists its
> datasets in \`sources\`; a lookup costs credits only when it answers.

Authentication: \`Authorization: Bearer sk_live_...\` (a secret key, server side). The sandbox key
\`sk_test_public_sandbox\` answers test values only, free: ${sandboxValues("full")}. Browser pages use a publishable ` +
    `key \`pk_live_...\` as \`key\` in the body of \`${browserPaths()}\`.

Answers are \`{success: true, data, meta}\` (\`meta.credits_used\`, \`meta.credits_remaining\`, \`meta.request_id\`);
errors are \`{success: false, error: {code, message, request_id}}\` with the HTTP status of the code.

Example: \`${exampleCall(origin)}\`

## Reference

- [API reference](${origin}/docs): every operation with its schemas and examples, rendered
- [OpenAPI 3.1 document](${origin}/api/v1/openapi.json): the same, as JSON

## Agents

- [Tool protocol](${origin}/mcp): \`POST /mcp\`, the Model Context Protocol over Streamable HTTP, with the same secret
  key; every tool is one API call with the same checks, prices and \`meta\`
- [Agents guide](${origin}/docs/agents.md): connecting Claude Code, Claude Desktop and other clients; tools; refusals
- Tools: ${tools.map((tool) => `\`${tool.name}\``).join(", ")}

## Guides

${GUIDES.map(guide).join("\n")}
`
  );
}

/**
 * Where the reference page loads its renderer and style (swagger-ui-dist's browser bundle and sheet, copied into the
 * static assets by scripts/build-widget.mjs under the same paths) and the few lines that start it on the served
 * document: all from our origin, so the page works offline, calls no CDN and needs no inline script.
 */
export const REFERENCE_SCRIPT_PATH = "/docs/assets/api-reference.js";
export const REFERENCE_STYLE_PATH = "/docs/assets/api-reference.css";
export const REFERENCE_START_PATH = "/docs/assets/reference-start.js";

/**
 * The page paints its title and where to go next at once; the renderer (1.7 MB) loads deferred and fills in the
 * operations below, so nothing waits for it to read the page.
 */
const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verification API reference</title>
<link rel="stylesheet" href="${REFERENCE_STYLE_PATH}">
<style>.reference-intro{max-width:1400px;margin:0 auto;padding:24px 20px 0;font:15px/1.5 system-ui,sans-serif}</style>
<script defer src="${REFERENCE_SCRIPT_PATH}"></script>
<script defer src="${REFERENCE_START_PATH}"></script>
</head>
<body>
<header class="reference-intro">
<h1>Verification API reference</h1>
<p>Every operation of the API with its schemas and examples, rendered from the served
<a href="/api/v1/openapi.json">OpenAPI 3.1 document</a>. Guides: <a href="/llms.txt">/llms.txt</a>.
Agents: the tool protocol at <code>/mcp</code> (<a href="/docs/agents.md">docs/agents.md</a>).</p>
<p class="reference-loading">Loading the operations&hellip;</p>
</header>
<div id="reference" data-document="/api/v1/openapi.json"></div>
</body>
</html>
`;

/**
 * `GET /docs` (the rendered reference of the served OpenAPI document) and `GET /llms.txt`; no key. `tools` names the
 * tool protocol's tools for llms.txt (read when asked, so the list is the one `tools/list` answers).
 */
export const referenceRoutes = (tools: () => Promise<ToolName[]>) =>
  new Hono<AppEnv>()
    .get("/docs", (c) => c.html(REFERENCE_PAGE))
    .get("/llms.txt", async (c) => c.text(llmsText(new URL(c.req.url).origin, await tools())));
