import { describe, expect, it } from "vitest";
import { fetchDocument } from "../../scripts/generate-client.mjs";
import { AUTOCOMPLETE } from "../../widget/src/autocomplete";
import { PRODUCTS } from "../../widget/src/products";
import { base } from "./stack";

/** Browser endpoints with no form field to attach to: `/ip/public` looks up the visitor, whom the page's code knows. */
const NOT_A_FORM_FIELD = new Set(["ip"]);

describe("widget products", () => {
  it(
    "cover exactly the browser endpoints of form fields that the API serves (docs/widget.md: adding a " + "product)",
    async () => {
      const document = (await fetchDocument(base)) as { paths: Record<string, { post?: unknown }> };
      const served = Object.entries(document.paths)
        .flatMap(([path, item]) => (item.post ? (/^\/api\/v1\/([a-z/]+)\/public$/.exec(path)?.[1] ?? []) : []))
        .filter((name) => !NOT_A_FORM_FIELD.has(name));
      expect([...PRODUCTS.map((product) => product.name), AUTOCOMPLETE.name].sort()).toEqual(served.sort());
    },
  );
});
