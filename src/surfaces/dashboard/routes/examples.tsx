import { Hono } from "hono";
import { SANDBOX_KEY } from "../../../auth/keys";
import { registeredProducts, type ServedProduct } from "../../../products/registry";
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

/**
 * What a sample answers, in a few words: its verdict field (the one the product's history keeps: `deliverable`,
 * `status`, `risk_level`, `verification`) and its `reason` when it has one. The product's own canned answer, so the
 * page says what the API will.
 */
async function answerOf(product: ServedProduct, sample: unknown): Promise<string | null> {
  const canned = await product.local?.(sample);
  if (!canned) return null;
  const result = canned.result as Record<string, unknown>;
  const field = product.history?.fields.verdict;
  const verdict = field ? result[field] : undefined;
  const reason = typeof result.reason === "string" ? ` (${result.reason})` : "";
  return verdict === undefined ? null : `${field}: ${String(verdict)}${reason}`;
}

/** Every product that lists its samples (`samples` beside `isSample`), with its single lookup's path and answers. */
const sections = () =>
  Promise.all(
    registeredProducts().flatMap((p) =>
      p.samples?.length
        ? [
            Promise.all(p.samples.map(async (value) => ({ value, answer: await answerOf(p, value) }))).then(
              (samples) => ({
                product: p.name,
                path: p.lookups?.routes.find((r) => r.kind === "single" && r.method === "post")?.path ?? null,
                samples,
              }),
            ),
          ]
        : [],
    ),
  );

/** Sandbox and test values as copyable examples, each with its answer. */
export const exampleRoutes = new Hono<DashEnv>().get("/examples", async (c) =>
  c.html(<ExamplesPage session={c.var.session} sections={await sections()} sandboxKey={SANDBOX_KEY} />),
);
