import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_SCRIPT_PATH } from "../../scripts/build-widget.mjs";
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
    await page.goto(`${base}/docs`);
    // The renderer is 4.4 MB of script to parse before the first heading: a busy machine takes tens of seconds.
    await expect
      .poll(() => page.getByRole("heading", { name: "Verification API" }).first().isVisible(), { timeout: 60_000 })
      .toBe(true);
    await expect.poll(() => page.getByText("Verify one address").first().isVisible()).toBe(true);
    await page.screenshot({ path: join(outputDir, "reference.png") });
    expect(ours).toContain(REFERENCE_SCRIPT_PATH);
    expect(ours).toContain("/api/v1/openapi.json");
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    expect(await page.getByText("Ask AI").count()).toBe(0);
    await page.close();
  });
});
