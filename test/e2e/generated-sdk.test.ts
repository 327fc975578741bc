import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import openapiTS from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { base, newAccount, outputDir } from "./stack";

const require = createRequire(import.meta.url);
const version = (name: string) => (require(`${name}/package.json`) as { version: string }).version;

/**
 * A program a developer would write against the generated SDK: typed by the operations' ids (`operations`), calling a
 * paid lookup, a batch and the ledger. It only compiles if the generated types say what these calls send and answer.
 */
const PROGRAM = `import createClient from "openapi-fetch";
import type { operations, paths } from "./api.js";

type LedgerEntry = operations["getLedger"]["responses"][200]["content"]["application/json"]["data"]["entries"][number];

export async function run(baseUrl: string, key: string) {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });
  const lookup = await api.GET("/api/v1/email/domain/{domain}", { params: { path: { domain: "acme.example" } } });
  const batch = await api.POST("/api/v1/email/batch", {
    body: { emails: ["deliverable@service.test", "undeliverable@service.test"] },
  });
  const ledger = await api.GET("/api/v1/account/ledger", { params: { query: { page: 1 } } });
  const entries: LedgerEntry[] = ledger.data?.data.entries ?? [];
  return {
    lookup: { mx_found: lookup.data?.data.mx_found, credits_used: lookup.data?.meta.credits_used },
    batch: batch.data?.data.results.map((item) => item.data?.deliverable),
    ledger: entries.map((entry) => [entry.kind, entry.product]),
  };
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    lib: ["es2022", "dom"],
    types: [],
    outDir: "out",
  },
  files: ["calls.ts"],
};

describe("an SDK generated from the served document (openapi-typescript + openapi-fetch)", () => {
  it("is generated, compiles with tsc, and calls a lookup, a batch and the ledger against the local API", async () => {
    const dir = join(outputDir, "generated-sdk");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const document = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { servers: { url: string }[] };
    const types = await openapiTS(document as Parameters<typeof openapiTS>[0], { silent: true });
    writeFileSync(join(dir, "api.d.ts"), types);
    writeFileSync(join(dir, "calls.ts"), PROGRAM);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const lines = readFileSync(join(dir, "api.d.ts"), "utf8").split("\n").length;
    console.log(
      `[sdk] openapi-typescript ${version("openapi-typescript")} wrote ${lines} lines; ` +
        `openapi-fetch ${version("openapi-fetch")} calls them`,
    );
    // tsc (the project's TypeScript) type-checks the program against the generated types and emits it.
    execFileSync(
      process.execPath,
      [join(dirname(require.resolve("typescript/package.json")), "bin", "tsc"), "-p", join(dir, "tsconfig.json")],
      {
        stdio: "inherit",
      },
    );

    const { secretKey } = await newAccount();
    const program = (await import(pathToFileURL(join(dir, "out", "calls.js")).href)) as {
      run(baseUrl: string, key: string): Promise<unknown>;
    };
    // The document names the server it was asked at: the SDK needs no base URL of its own.
    expect(document.servers).toEqual([{ url: base }]);
    expect(await program.run(document.servers[0]!.url, secretKey)).toEqual({
      lookup: { mx_found: true, credits_used: 1 },
      batch: ["deliverable", "undeliverable"],
      ledger: [
        ["charge", "email"],
        ["monthly_grant", null],
      ],
    });
  });
});
