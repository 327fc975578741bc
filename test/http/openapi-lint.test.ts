import { env, SELF } from "cloudflare:test";
import { expect, it } from "vitest";
import type { LintReport } from "../fixtures/openapi-desk";

// Redocly's CLI (pinned in package.json) on the document as served, with the project's redocly.yaml: the recommended
// rules, each one off there saying why. The CLI runs in Node (test/fixtures/openapi-desk.ts): workerd cannot spawn it.
it("the served OpenAPI document lints clean under Redocly's recommended rules: 0 errors, 0 warnings", async () => {
  const document = await (await SELF.fetch("https://api.test/api/v1/openapi.json")).text();
  const response = await fetch(`${env.OPENAPI_DESK_URL}/lint`, { method: "POST", body: document });
  const report = (await response.json()) as LintReport;
  const problems = report.output.split("\n").filter((line) => /^(error|warning)\s/.test(line));
  console.log(`redocly lint: ${/Woohoo[^\n]*|Validation failed[^\n]*/.exec(report.output)?.[0] ?? report.output}`);
  expect(problems).toEqual([]);
  expect(report.output).toContain("Your API description is valid");
  expect(report.output).not.toMatch(/You have \d+ warning/);
  expect(report.code).toBe(0);
}, 60_000);
