import { loadavg } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_SCRIPT_PATH, REFERENCE_START_PATH } from "../../scripts/build-widget.mjs";
import { base, browser as executablePath, outputDir } from "./stack";

describe.skipIf(!executablePath)("the rendered reference (GET /docs) in a browser", () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: executablePath!, headless: true });
  });
  afterAll(async () => browser?.close());

  it("renders the served document with every request to our origin: it works offline", async () => {
    const page = await browser.newPage();
    const origin = new URL(base).origin;
    const ours: string[] = [];
    const foreign: string[] = [];
    // Anything for another origin (a CDN, fonts, telemetry) is refused, as it would fail without internet.
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`)) {
        ours.push(new URL(url).pathname);
        return route.continue();
      }
      if (!url.startsWith("data:")) foreign.push(url);
      return route.abort();
    });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    const document = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, object>;
      tags?: unknown[];
    };
    const operationCount = Object.values(document.paths).reduce((sum, ops) => sum + Object.keys(ops).length, 0);
    // Every declared tag is a row; the webhook (`webhooks`, no path) renders apart.
    const tagCount = document.tags?.length ?? 0;
    // Milliseconds from navigation until every tag of the document shows as its row, closed (Swagger UI's
    // `.opblock-tag`; the page opens none: Swagger UI 5.35 stops rendering past about 140 open operations).
    const renderTime = async (navigate: () => Promise<unknown>) => {
      const started = Date.now();
      await navigate();
      await expect
        .poll(() => page.locator(".opblock-tag").count(), { timeout: 30_000, interval: 50 })
        .toBeGreaterThanOrEqual(tagCount);
      return Date.now() - started;
    };
    const rendered = await renderTime(() => page.goto(`${base}/docs`));
    // Printed, not asserted (a timed assertion fails on a loaded machine, not on a slow page): first paint (the
    // page's own title, before the renderer) and every tag rendered (docs/architecture.md records them).
    const paint = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime);
    // A second visit: the browser has the renderer's script compiled and cached, as a returning reader's has.
    const again = await renderTime(() => page.reload());
    // Every operation renders: each tag opened in turn shows all its operations, then is closed again.
    let shown = 0;
    const started = Date.now();
    for (let i = 0; i < tagCount; i++) {
      const tag = page.locator(".opblock-tag").nth(i);
      await tag.click();
      const name = (await tag.getAttribute("data-tag")) ?? "";
      const expected = Object.values(document.paths)
        .flatMap((ops) => Object.values(ops))
        .filter((op) => (op as { tags?: string[] }).tags?.includes(name)).length;
      await expect.poll(() => page.locator(".opblock").count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(expected);
      shown += expected;
      await tag.click();
    }
    expect(shown).toBe(operationCount);
    console.log(
      `[reference] first paint ${Math.round(paint ?? -1)} ms, ${tagCount} tags rendered ${rendered} ms ` +
        `(again: ${again} ms); ${shown} operations opened tag by tag in ${Date.now() - started} ms ` +
        `(load average ${loadavg()[0]!.toFixed(1)})`,
    );
    await page.locator('.opblock-tag[data-tag="Email"]').click();
    await expect.poll(() => page.getByText("Verify one address").first().isVisible()).toBe(true);
    // An operation opens with its request and response examples (a real answer, resolved by the page's own plugin).
    await page.locator("#operations-Email-verifyEmail .opblock-summary").click();
    await expect
      .poll(() => page.locator("#operations-Email-verifyEmail .response .example").count())
      .toBeGreaterThan(0);
    await page.screenshot({ path: join(outputDir, "reference.png") });
    expect(ours).toContain(REFERENCE_SCRIPT_PATH);
    expect(ours).toContain(REFERENCE_START_PATH);
    expect(ours).toContain("/api/v1/openapi.json");
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    // No vendor's hosted-service buttons or URL box: the page is the reference of this API only.
    for (const text of ["Ask AI", "Generate MCP", "Deploy", "Explore"])
      expect(await page.getByText(text, { exact: true }).count(), text).toBe(0);
    await page.close();
  });
});
