import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import {
  REFERENCE_SCRIPT_PATH,
  REFERENCE_SCRIPT_SOURCE,
  REFERENCE_START_PATH,
  REFERENCE_STYLE_PATH,
} from "../../scripts/build-widget.mjs";
import { ROOT } from "../../scripts/lib/local.mjs";
import { base, newAccount } from "./stack";

const run = promisify(execFile);
const DOCS = join(ROOT, "docs");

/** Every ```sh block of docs/*.md made only of curl commands (deployment checks mixing other tools are not run). */
function curlBlocks(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.trim());
  return blocks.filter((block) => {
    const commands = block.split(/(?<!\\)\n/).filter((line) => line.trim() !== "");
    return commands.length > 0 && commands.every((command) => command.startsWith("curl "));
  });
}

const examples = readdirSync(DOCS)
  .filter((name) => name.endsWith(".md"))
  .sort()
  .flatMap((name) =>
    curlBlocks(readFileSync(join(DOCS, name), "utf8")).map((block, i) => ({ name: `${name} #${i + 1}`, block })),
  );

/**
 * The docs' curl examples, run as written (`sh -c`) against the local API the e2e set-up starts, with `API` its origin
 * and `API_KEY` a fresh account's secret key: each must answer a success envelope.
 */
describe("docs/*.md curl examples", () => {
  let apiKey = "";
  beforeAll(async () => {
    apiKey = (await newAccount()).secretKey;
    console.log(`[docs] ${examples.length} curl examples from docs/*.md`);
  });

  it("finds examples on every product page", () => {
    for (const page of [
      "email.md",
      "phone.md",
      "ip.md",
      "address.md",
      "entity.md",
      "consistency.md",
      "jobs-and-webhooks.md",
      "billing.md",
    ]) {
      expect(
        examples.some((e) => e.name.startsWith(`${page} `)),
        page,
      ).toBe(true);
    }
  });

  it.each(examples.map((e) => [e.name, e.block] as const))("%s answers a success envelope", async (_name, block) => {
    // One key, five requests a second: pace the examples.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const { stdout } = await run("sh", ["-c", block], { env: { ...process.env, API: base, API_KEY: apiKey } });
    const answer = JSON.parse(stdout) as { success: boolean; error?: unknown };
    expect(answer.error).toBeUndefined();
    expect(answer.success).toBe(true);
  });
});

describe("the reference and the guides", () => {
  it("serves /docs, /llms.txt and every guide /llms.txt links to, as in docs/", async () => {
    const reference = await fetch(`${base}/docs`);
    expect(reference.status).toBe(200);
    const html = await reference.text();
    expect(html).toContain("/api/v1/openapi.json");
    // The renderer comes from our static assets (scripts/build-widget.mjs), byte for byte the pinned package's bundle.
    expect(html).toContain(`<script defer src="${REFERENCE_SCRIPT_PATH}"></script>`);
    expect(html).toContain(`<script defer src="${REFERENCE_START_PATH}"></script>`);
    expect(html).not.toMatch(/jsdelivr|unpkg|cdn\./);
    const script = await fetch(`${base}${REFERENCE_SCRIPT_PATH}`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect(script.headers.get("cache-control")).toBe("public, max-age=3600");
    const served = Buffer.from(await script.arrayBuffer());
    expect(served.equals(readFileSync(REFERENCE_SCRIPT_SOURCE))).toBe(true);
    expect(served.toString("latin1")).toContain("SwaggerUIBundle");
    for (const path of [REFERENCE_STYLE_PATH, REFERENCE_START_PATH])
      expect((await fetch(`${base}${path}`)).status, path).toBe(200);
    const llms = await (await fetch(`${base}/llms.txt`)).text();
    const guides = [...llms.matchAll(/\]\((http[^)]+\/docs\/([\w-]+\.md))\)/g)];
    expect(guides.length).toBeGreaterThan(10);
    for (const [, url, file] of guides) {
      const page = await fetch(url!);
      expect(page.status, url).toBe(200);
      expect(await page.text()).toBe(readFileSync(join(DOCS, file!), "utf8"));
    }
  });
});
