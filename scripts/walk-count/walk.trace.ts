import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect, it } from "vitest";
import worker from "../../src/index";
import { BASE, createAccount, json } from "../../test/helpers";
import { mcpHeaders } from "../../test/mcp-client";

/**
 * One paid lookup per path, traced from its handler (the first statement run in `from`) until the request and the work
 * it deferred past its answer are done, counted as docs/architecture.md ("A paid lookup, file by file") describes:
 * - a stay is a run of statements in one file (instrument.ts); a return is a stay in a file the path had already left;
 * - a product's own files count as one (`products/email`), and so does what it calls outside the lookup's path
 *   (`PATH`: its sources, the risk score); one call to the account's object is one stay (`durable-objects/account`),
 *   with what it calls (the plans' rules): its internals are the object's own;
 * - not followed: the key middleware and admission around the handler (`auth/`, `limits/`), the platform's helpers and
 *   accessors (`platform/`, `db/`), and the HTTP plumbing (`http/`) but for the envelope.
 */
interface Path {
  name: string;
  from: string;
  request: (key: string, email: string) => Request;
}

const PATHS: Path[] = [
  {
    name: "POST /api/v1/email (REST)",
    from: "src/surfaces/api/rest-lookups.ts",
    request: (key, email) => new Request(`${BASE}/api/v1/email`, json({ email }, { Authorization: `Bearer ${key}` })),
  },
  {
    name: "tools/call verify_email (tool protocol)",
    from: "src/surfaces/mcp/lookup-tools.ts",
    request: (key, email) =>
      new Request(`${BASE}/mcp`, {
        method: "POST",
        headers: mcpHeaders(key),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "verify_email", arguments: { email } },
        }),
      }),
  },
];

interface Tracer {
  from: string;
  on: boolean;
  stays: string[];
}

const NOT_FOLLOWED = /^src\/(auth|limits|platform|db)\/|^src\/http\/(?!envelope)/;
/** The lookup's own path: always counted, and where a product's or the object's stay ends. */
const PATH = /^src\/(surfaces|lookups|engines\/(walk|lists|policy)|engines\/credits\/credits|http)\b/;

/** The name a file's statements are counted under (null: not followed, the stay goes on). */
function stayOf(file: string, current: string | undefined): string | null {
  if (file.startsWith("durable-objects/")) return "durable-objects/account";
  if (NOT_FOLLOWED.test(file)) return null;
  const product = /^src\/(products\/[^/]+)\//.exec(file)?.[1];
  const folding = current?.startsWith("products/") || current === "durable-objects/account";
  if (current && folding && !PATH.test(file)) return current;
  return product ?? file.replace(/^src\//, "").replace(/\.ts$/, "");
}

function trace(): Tracer {
  const tracer: Tracer = { from: "", on: false, stays: [] };
  (globalThis as { __walkTrace?: (file: string) => void }).__walkTrace = (file) => {
    if (!tracer.on && file !== tracer.from) return;
    tracer.on = true;
    const stay = stayOf(file, tracer.stays.at(-1));
    if (stay && tracer.stays.at(-1) !== stay) tracer.stays.push(stay);
  };
  return tracer;
}

async function run(path: Path, key: string, tracer?: Tracer) {
  const ctx = createExecutionContext();
  if (tracer) Object.assign(tracer, { from: path.from, on: false, stays: [] });
  const response = await worker.fetch(path.request(key, `walk-${crypto.randomUUID()}@catchall.example`), env, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  if (tracer) tracer.from = "\0";
  return { status: response.status, text };
}

it("counts the stays, files and returns of a paid lookup on each path", { timeout: 120_000 }, async () => {
  const tracer = trace();
  tracer.from = "\0";
  for (const path of PATHS) {
    const acct = await createAccount({ pack: 100 });
    // Warm: the modules a path imports on its first request, the key's cache row, the account's object.
    const warm = await run(path, acct.key);
    expect(warm.status, warm.text).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the key's 5 a second
    const traced = await run(path, acct.key, tracer);
    expect(traced.status, traced.text).toBe(200);
    expect(traced.text).toMatch(/"credits_used":1/);
    const stays = tracer.stays;
    const files = new Set(stays).size;
    console.log(`walk-count ${path.name}: ${stays.length} stays, ${files} files, ${stays.length - files} returns`);
    console.log(`walk-path ${path.name}: ${stays.join(" -> ")}`);
  }
});
