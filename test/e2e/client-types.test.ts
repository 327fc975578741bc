import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { clientTypes, fetchDocument, GENERATED_FILE } from "../../scripts/generate-client.mjs";
import { base } from "./stack";

describe("generated client types", () => {
  it("match the OpenAPI document the API serves (else: npm run client:generate, and commit)", async () => {
    const fresh = await clientTypes(await fetchDocument(base));
    expect(
      readFileSync(GENERATED_FILE, "utf8") === fresh,
      "client/src/openapi.gen.ts is stale: run `npm run client:generate`",
    ).toBe(true);
  });
});
