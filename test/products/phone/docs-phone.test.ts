import { expect, it } from "vitest";
import doc from "../../../docs/phone.md?raw";
import { cannedAnswer, TEST_PHONE_NUMBERS } from "../../../src/products/phone/test-numbers";

/** docs/phone.md prints the test numbers and one full canonical answer: keep both equal to what the code returns. */
it("documents the test numbers and the canonical answer exactly as the API gives them", () => {
  const listed = [...doc.matchAll(/^\| `(\+447700900\d{3})` \|/gm)].map((m) => m[1]);
  expect(listed).toEqual(TEST_PHONE_NUMBERS);
  const json = /## Test numbers[\s\S]*?```json\n([\s\S]*?)\n```/.exec(doc)![1]!;
  expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(cannedAnswer("+447700900000", "+447700900000"))));
});
