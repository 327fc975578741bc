import { Hono } from "hono";
import { SANDBOX_KEY } from "../../auth/keys";
import { registeredProducts } from "../../products/registry";
import type { DashEnv } from "../context";
import { ExamplesPage } from "../pages/examples";

/**
 * The page script of the examples page: a button's `data-copy` text to the clipboard (a file, since the CSP allows
 * no inline script).
 */
export const COPY_SCRIPT = `document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy]") : null;
  if (!button || !navigator.clipboard) return;
  navigator.clipboard.writeText(button.getAttribute("data-copy") || "").then(() => {
    button.textContent = "Copied";
    setTimeout(() => (button.textContent = "Copy"), 1500);
  });
});
`;

/** Every product that lists its samples (`samples` beside `isSample`), with its single lookup's path. */
const sections = () =>
  registeredProducts().flatMap((p) =>
    p.samples?.length
      ? [
          {
            product: p.name,
            path: p.lookups?.routes.find((r) => r.kind === "single" && r.method === "post")?.path ?? null,
            samples: [...p.samples],
          },
        ]
      : [],
  );

/** Sandbox and test values as copyable examples. */
export const exampleRoutes = new Hono<DashEnv>().get("/examples", (c) =>
  c.html(<ExamplesPage session={c.var.session} sections={sections()} sandboxKey={SANDBOX_KEY} />),
);
