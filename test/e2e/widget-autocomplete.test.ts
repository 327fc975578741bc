import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileRecords } from "../../datasets/address/records.mjs";
import { ROOT, freePort } from "../../scripts/lib/local.mjs";
import { ADDRESS_DATASETS } from "../../src/products/address/datasets";
import { admin, browser as executablePath, newPublishableKey, outputDir, pageBase } from "./stack";

/** The BAN sample loaded through the operator import, as `npm run dev` loads it: French streets to suggest. */
async function installBanSample() {
  const csv = readFileSync(join(ROOT, "datasets/address/samples/fr-ban.sample.csv"), "utf8");
  for await (const rows of fileRecords(ADDRESS_DATASETS["fr-ban"].file!, "fr-ban", [csv]))
    await admin("POST", "/address-datasets/fr-ban/rows", rows);
  await admin("POST", "/address-datasets/fr-ban/complete", {
    version: "2026-11-23-sample",
    records: 9,
    coverage: { kind: "sample", note: "Synthetic sample rows shipped with the code, not the publisher's file." },
  });
}

/** Address autocomplete on the demo page (docs/widget.md, "Address autocomplete"), in headless Chromium. */
describe.skipIf(!executablePath)("address autocomplete widget", () => {
  let browser: Browser;
  let key: string;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: executablePath!, headless: true });
    key = await newPublishableKey();
    await installBanSample();
  });
  afterAll(async () => browser?.close());

  async function demo(params: Record<string, string>) {
    const page = await browser.newPage({ viewport: { width: 720, height: 900 } });
    await page.goto(`${pageBase}/demo?${new URLSearchParams(params)}`);
    await page.waitForFunction(() => "VerifyWidget" in window);
    return { page, line1: page.getByRole("combobox", { name: "Address line 1" }), list: page.getByRole("listbox") };
  }

  it("offers suggestions as one types, navigable by keyboard, and a chosen one fills the form", async () => {
    const { page, line1, list } = await demo({ key });
    await page.getByLabel("Country (two letters)").fill("FR");
    await line1.pressSequentially("55 rue du faub", { delay: 30 });
    await expect
      .poll(() => list.getByRole("option").allTextContents())
      .toEqual(["55 Rue du Faubourg Saint-Honoré, 75008 Paris 8e Arrondissement"]);
    expect(await line1.getAttribute("aria-expanded")).toBe("true");
    expect(await line1.getAttribute("aria-controls")).toBe(await list.getAttribute("id"));
    await line1.fill("rue");
    await expect.poll(() => list.getByRole("option").count()).toBe(2);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    const second = list.getByRole("option").nth(1);
    expect(await second.getAttribute("aria-selected")).toBe("true");
    expect(await line1.getAttribute("aria-activedescendant")).toBe(await second.getAttribute("id"));
    // docs/widget.md shows this one: refreshed with UPDATE_DOCS_SCREENSHOTS=1, so a test run leaves the tree clean.
    if (process.env.UPDATE_DOCS_SCREENSHOTS === "1")
      await page.screenshot({ path: join(ROOT, "docs", "widget-autocomplete.png") });
    await page.screenshot({ path: join(outputDir, "widget-autocomplete.png"), fullPage: true });
    await page.keyboard.press("Enter");
    expect(await line1.inputValue()).toBe("Rue du Faubourg Saint-Honoré");
    expect(await page.getByLabel("Town").inputValue()).toBe("Paris 8e Arrondissement");
    expect(await page.getByLabel("Postcode").inputValue()).toBe("75008");
    expect(await page.getByLabel("Country (two letters)").inputValue()).toBe("FR");
    expect(await list.isHidden()).toBe(true);
    expect(await line1.getAttribute("aria-expanded")).toBe("false");
    await page.close();
  });

  it("closes on Escape, and picks with the mouse", async () => {
    const { page, line1, list } = await demo({ key });
    await line1.pressSequentially("1 test", { delay: 30 });
    await expect.poll(() => list.getByRole("option").count()).toBe(2);
    await page.keyboard.press("Escape");
    expect([await list.isHidden(), await line1.getAttribute("aria-expanded")]).toEqual([true, "false"]);
    await line1.pressSequentially("s", { delay: 30 });
    await list.getByRole("option", { name: "Testville ZZ1 1ZZ", exact: true }).click();
    expect([await line1.inputValue(), await page.getByLabel("Postcode").inputValue()]).toEqual(["1 tests", "ZZ1 1ZZ"]);
    await page.close();
  });

  it("stays a plain field when the API cannot be reached", async () => {
    const { page, line1, list } = await demo({ key, api: `http://127.0.0.1:${await freePort()}` });
    await line1.pressSequentially("1 test street", { delay: 20 });
    await page.waitForTimeout(800);
    expect([await list.isHidden(), await line1.getAttribute("aria-expanded")]).toEqual([true, "false"]);
    await page.keyboard.press("Enter");
    expect(await line1.inputValue()).toBe("1 test street");
    await page.close();
  });
});
