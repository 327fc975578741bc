import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/local.mjs";
import { base, browser as executablePath, newPublishableKey, outputDir, pageBase } from "./stack";

/** What a person sees of the widget on the demo sign-up page (widget/demo.html), in headless Chromium. */
describe.skipIf(!executablePath)("sign-up form widget", () => {
  let browser: Browser;
  let demoKey: string;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: executablePath!, headless: true });
    demoKey = await newPublishableKey();
  });
  afterAll(async () => browser?.close());

  /** The demo page for `params`, with every browser lookup it makes recorded (request bodies, in order). */
  async function demo(params: Record<string, string>, init?: () => void) {
    const page = await browser.newPage();
    const lookups: Record<string, unknown>[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && request.url().endsWith("/email/public")) lookups.push(request.postDataJSON());
    });
    if (init) await page.addInitScript(init);
    await page.goto(`${pageBase}/demo?${new URLSearchParams(params)}`);
    await page.waitForFunction(() => "VerifyWidget" in window);
    // The demo page also has phone and address fields, each with its own status: this is the email field's.
    return { page, lookups, email: page.getByLabel("Email"), status: page.locator("#email + .verify-status") };
  }

  const state = (page: Page) => page.getByLabel("Email").getAttribute("data-verify-state");
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(outputDir, `widget-${name}.png`), fullPage: true });

  it("shows the verdict once typing pauses, one lookup per address, in a live region tied to the field", async () => {
    const { page, lookups, email, status } = await demo({ key: demoKey });
    await email.pressSequentially("deliverable@service.test", { delay: 20 });
    await expect.poll(() => status.textContent()).toBe("Looks good.");
    expect(lookups).toEqual([{ key: demoKey, email: "deliverable@service.test" }]);
    expect(await status.getAttribute("aria-live")).toBe("polite");
    expect(await email.getAttribute("aria-describedby")).toBe(await status.getAttribute("id"));
    expect(await state(page)).toBe("deliverable");
    await shot(page, "deliverable");

    await email.fill("undeliverable@service.test");
    await expect.poll(() => status.textContent()).toBe("This mailbox does not exist.");
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    await shot(page, "undeliverable");

    await email.fill("disposable@service.test");
    await expect.poll(() => status.textContent()).toBe("This looks like a disposable address.");
    expect(await email.getAttribute("aria-invalid")).toBeNull();
    expect(await status.getAttribute("class")).toBe("verify-status verify-warn");
    await page.close();
  });

  it("offers the typo correction and accepts it from the keyboard", async () => {
    const { page, email, status } = await demo({ key: demoKey });
    await email.fill("john.smith@gmial.com");
    await expect.poll(() => status.textContent()).toBe("Did you mean john.smith@gmail.com?");
    await shot(page, "typo-suggestion");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("john.smith@gmail.com");
    await page.keyboard.press("Enter");
    await expect.poll(() => email.inputValue()).toBe("john.smith@gmail.com");
    await expect.poll(() => status.textContent()).toBe("Looks good.");
    expect(await email.evaluate((input) => input === document.activeElement)).toBe(true);
    await shot(page, "typo-accepted");
    await page.close();
  });

  it("stays silent and lets the form submit when the API cannot be reached", async () => {
    const { page, email, status } = await demo({ key: demoKey, api: `http://127.0.0.1:${await freePort()}` });
    await email.fill("deliverable@service.test");
    await email.blur();
    await expect.poll(() => state(page)).toBe("unavailable");
    expect(await status.textContent()).toBe("");
    expect(await email.getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect.poll(() => page.locator("#submitted").textContent()).toBe("Signed up as deliverable@service.test.");
    await shot(page, "api-down");
    await page.close();
  });

  it(
    "goes quiet after a rate-limited answer, honours Retry-After across origins, and never blocks the " + "form",
    async () => {
      const key = await newPublishableKey();
      // The page on localhost, the API on 127.0.0.1: a cross-origin embed, as on a customer's site.
      const { page, lookups, email, status } = await demo({ key, api: base });
      // The visitor's budget is 20 a minute with bursts of 20 (GCRA): spent until it refuses, however long the
      // lookups take on a busy machine (one comes back every 3 s).
      const spent = await page.evaluate(
        async ({ api, key }) => {
          const statuses: number[] = [];
          for (let i = 0; i < 60 && statuses.at(-1) !== 429; i++) {
            const body = JSON.stringify({ key, email: `deliverable+${i}@service.test` });
            statuses.push(
              (
                await fetch(`${api}/api/v1/email/public`, {
                  method: "POST",
                  headers: { "Content-Type": "application/json" },
                  body,
                })
              ).status,
            );
          }
          return statuses;
        },
        { api: base, key },
      );
      expect(spent.length).toBeGreaterThan(20);
      expect(spent.slice(0, 20).every((s) => s === 200)).toBe(true);
      expect(spent.at(-1)).toBe(429);
      lookups.splice(0); // from here on, only the widget's own
      await email.fill("role@service.test");
      await email.blur();
      await expect.poll(() => state(page)).toBe("unavailable");
      expect(await status.textContent()).toBe("");
      // Within Retry-After the widget does not ask again, whatever is typed: it answers itself, at once.
      await page.evaluate(() => {
        const counted = window as unknown as { results: number };
        counted.results = 0;
        document.addEventListener("verify:result", () => counted.results++);
      });
      await email.fill("catch-all@service.test");
      await email.blur();
      await expect.poll(() => page.evaluate(() => (window as unknown as { results: number }).results)).toBe(1);
      expect(await state(page)).toBe("unavailable");
      expect(lookups.map((l) => l.email)).toEqual(["role@service.test"]);
      await page.getByRole("button", { name: "Sign up" }).click();
      await expect.poll(() => page.locator("#submitted").textContent()).toBe("Signed up as catch-all@service.test.");
      await shot(page, "rate-limited");
      await page.close();
    },
  );

  it("sends a fresh bot-challenge token with every lookup, and stays silent when the challenge fails", async () => {
    const key = await newPublishableKey({ challenge: true });
    const tokens = () => {
      (window as unknown as { demoToken: () => Promise<string> }).demoToken = async () => `pass-${crypto.randomUUID()}`;
      (window as unknown as { badToken: () => string }).badToken = () => "fail-token";
    };
    const { page, lookups, email, status } = await demo({ key, challenge: "demoToken" }, tokens);
    await email.fill("deliverable@service.test");
    await expect.poll(() => status.textContent()).toBe("Looks good.");
    await email.fill("disposable@service.test");
    await expect.poll(() => status.textContent()).toBe("This looks like a disposable address.");
    const sent = lookups.map((l) => l.challenge_token as string);
    expect(sent).toHaveLength(2);
    expect(sent.every((t) => t.startsWith("pass-"))).toBe(true);
    expect(new Set(sent).size).toBe(2);
    await page.close();

    const failing = await demo({ key, challenge: "badToken" }, tokens);
    await failing.email.fill("deliverable@service.test");
    await failing.email.blur();
    await expect.poll(() => state(failing.page)).toBe("unavailable");
    expect(await failing.status.textContent()).toBe("");
    await failing.page.close();
  });

  it(
    "takes its colours from --verify-* variables and attaches to email fields added later, outside their " + "label",
    async () => {
      const { page } = await demo({ key: demoKey });
      await page.addStyleTag({ content: "form { --verify-ok: rgb(1, 2, 3); }" });
      await page.evaluate(() => {
        const label = document.createElement("label");
        label.textContent = "Work email ";
        label.append(Object.assign(document.createElement("input"), { type: "email", name: "work" }));
        document.querySelector("form")!.prepend(label);
      });
      const work = page.getByLabel("Work email", { exact: true });
      await work.fill("deliverable@service.test");
      const status = page.locator(`#${await work.getAttribute("aria-describedby")}`);
      await expect.poll(() => status.textContent()).toBe("Looks good.");
      expect(await status.evaluate((element) => getComputedStyle(element).color)).toBe("rgb(1, 2, 3)");
      // The message sits after the field's label, not in it, so the field's accessible name stays its label.
      expect(await page.getByRole("textbox", { name: "Work email", exact: true }).count()).toBe(1);
      await shot(page, "themed");
      await page.close();
    },
  );
});
