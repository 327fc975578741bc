import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const CLIENT = dirname(fileURLToPath(import.meta.url));
const TSC = join(CLIENT, "..", "node_modules", "typescript", "bin", "tsc");

/**
 * What a user does: `npm pack` the client (prepack builds it), then install the tarball into an empty project, offline.
 */
describe("client/ as an npm package", () => {
  const scratch = mkdtempSync(join(tmpdir(), "client-package-"));
  let packed;

  beforeAll(async () => {
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: CLIENT });
    [packed] = JSON.parse(stdout.slice(stdout.indexOf("[")));
    writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
    await run("npm", ["install", `./${packed.filename}`, "--offline", "--no-audit", "--no-fund"], { cwd: scratch });
  }, 120_000);

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("packs the built ESM JavaScript with its declarations and package.json, not the sources", () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toContain("package.json");
    for (const name of ["index", "client", "errors", "webhooks", "types", "openapi.gen"]) {
      expect(files).toContain(`dist/${name}.js`);
      expect(files).toContain(`dist/${name}.d.ts`);
    }
    expect(files.filter((f) => !f.startsWith("dist/") && f !== "package.json")).toEqual([]);
  });

  it("imports by its name in the scratch project and calls a real HTTP server through it", async () => {
    const server = createServer((req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "X-Request-Id": "req_pack" });
      res.end(
        JSON.stringify({
          success: true,
          data: { path: req.url, auth: req.headers.authorization },
          meta: { request_id: "req_pack" },
        }),
      );
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const secret = "whsec_0123456789abcdefghijklmnopqrstuv";
    const body = '{"event":"bulk_email_job.finished"}';
    const t = Math.floor(Date.now() / 1000);
    const header = `t=${t},v2=${createHmac("sha256", secret).update(`v2:${t}:${body}`).digest("hex")}`;
    writeFileSync(
      join(scratch, "consumer.mjs"),
      `import { createClient, webhookVerifier, ApiError } from "verification-api-client";
const api = createClient({ baseUrl: process.argv[2], apiKey: "sk_live_pack" });
const answer = await api.get("/api/v1/account");
const event = await webhookVerifier({ secret: ${JSON.stringify(secret)} })(${JSON.stringify(body)}, ` +
        `${JSON.stringify(header)});
console.log(JSON.stringify({ data: answer.data, requestId: answer.requestId, event, apiError: typeof ApiError }));`,
    );
    try {
      const { stdout } = await run(process.execPath, ["consumer.mjs", `http://127.0.0.1:${server.address().port}`], {
        cwd: scratch,
      });
      expect(JSON.parse(stdout)).toEqual({
        data: { path: "/api/v1/account", auth: "Bearer sk_live_pack" },
        requestId: "req_pack",
        event: { event: "bulk_email_job.finished" },
        apiError: "function",
      });
    } finally {
      server.close();
    }
  });

  it("type-checks a TypeScript consumer against the packed declarations (paths from the OpenAPI " +
    "document)", async () => {
    writeFileSync(
      join(scratch, "consumer.ts"),
      `import { createClient, type paths } from "verification-api-client";
const api = createClient({ baseUrl: "http://127.0.0.1", apiKey: "sk_live_x" });
export const call = () => api.post("/api/v1/email", { body: { email: "valid@service.test" } });
export type Account = paths["/api/v1/account"]["get"];
// @ts-expect-error: not a path of the API
export const wrong = () => api.get("/api/v1/no-such-path");`,
    );
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          lib: ["es2022", "dom"],
          strict: true,
          noEmit: true,
          types: [],
        },
        files: ["consumer.ts"],
      }),
    );
    await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: scratch });
  }, 60_000);
});
