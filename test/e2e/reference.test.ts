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
    };
    const operationCount = Object.values(document.paths).reduce((sum, ops) => sum + Object.keys(ops).length, 0);
    // Milliseconds from navigation until every operation of the document shows as its row (Swagger UI's `.opblock`).
    const renderTime = async (navigate: () => Promise<unknown>) => {
      const started = Date.now();
      await navigate();
      await expect
        .poll(() => page.locator(".opblock").count(), { timeout: 60_000, interval: 50 })
        .toBeGreaterThanOrEqual(operationCount);
      return Date.now() - started;
    };
    const rendered = await renderTime(() => page.goto(`${base}/docs`));
    // Printed, not asserted (a timed assertion fails on a loaded machine, not on a slow page): first paint (the
    // page's own title, before the renderer) and every operation rendered (docs/architecture.md records them).
    const paint = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime);
    // A second visit: the browser has the renderer's script compiled and cached, as a returning reader's has.
    const again = await renderTime(() => page.reload());
    console.log(
      `[reference] first paint ${Math.round(paint ?? -1)} ms, ${operationCount} operations rendered ${rendered} ms ` +
        `(again: ${again} ms; load average ${loadavg()[0]!.toFixed(1)})`,
    );
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
