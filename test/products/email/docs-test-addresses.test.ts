import { expect, it } from "vitest";
import { cannedAnswer, cannedDomain } from "../../../src/products/email/test-addresses";
import doc from "../../../docs/test-addresses.md?raw";

/** docs/test-addresses.md promises byte-identical answers: keep the documented JSON equal to what the code returns. */
it("documents every canonical answer exactly as the API gives it", () => {
  const blocks = [...doc.matchAll(/^## `([^`]+)`\n\n```json\n([\s\S]*?)\n```/gm)].map(
    ([, title, body]) => [title!, JSON.parse(body!)] as const,
  );
  expect(blocks.map(([title]) => title)).toEqual([
    "deliverable@service.test",
    "unverified@service.test",
    "catch-all@service.test",
    "disposable@service.test",
    "role@service.test",
    "undeliverable@service.test",
    "GET /api/v1/email/domain/service.test",
  ]);
  for (const [title, documented] of blocks) {
    const actual = title.startsWith("GET")
      ? cannedDomain("service.test")
      : cannedAnswer(title.split("@")[0]!, "service.test", title);
    expect(documented, title).toEqual(JSON.parse(JSON.stringify(actual)));
  }
});
