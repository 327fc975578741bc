import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailedLink, newEmail, newSession } from "./dashboard-helpers";
import { base, browser as executablePath, pageBase } from "./stack";

/**
 * The dashboard's browser rules (docs/dashboard.md, "Sessions and the browser rules") as Chromium applies them: what
 * the workerd tests can only read as headers, seen here as a browser's behaviour.
 */
describe.skipIf(!executablePath)("the dashboard's rules in a browser", () => {
  let browser: Browser;
  let signedIn: Awaited<ReturnType<typeof newSession>>;
  let email: string;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: executablePath!, headless: true });
    // One owner, signed up, confirmed and signed in through the pages.
    signedIn = await newSession(browser, "security");
    const { page } = signedIn;
    email = newEmail("security");
    await page.goto(`${base}/dashboard/sign-up`);
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.goto(`${base}${await mailedLink(email, /https?:\/\/\S+\/mail\/confirm\/[0-9A-Za-z]+/)}`);
    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.goto(`${base}${await mailedLink(email, /https?:\/\/\S+\/dashboard\/sign-in\/link\/[0-9A-Za-z]+/)}`);
    await page.getByRole("button", { name: "Continue to the dashboard" }).click();
    await page.waitForURL(`${base}/dashboard/keys`);
  });
  afterAll(async () => browser?.close());

  it("keeps the session cookie HttpOnly, Secure, SameSite=Lax and host-only, out of page scripts' reach", async () => {
    const cookies = await signedIn.context.cookies(base);
    const session = cookies.find((c) => c.name === "__Host-session");
    expect(session).toMatchObject({
      domain: new URL(base).hostname,
      path: "/",
      httpOnly: true,
      secure: true,
      sameSite: "Lax",
    });
    // 14 days from now, give or take the run.
    expect(session!.expires * 1000 - Date.now()).toBeGreaterThan(13.9 * 86_400_000);
    expect(await signedIn.page.evaluate(() => document.cookie)).not.toContain("__Host-session");
  });

  it("refuses to run an inline script or style injected into a page (CSP)", async () => {
    const page = await signedIn.context.newPage();
    await page.goto(`${base}/dashboard/keys`);
    const outcome = await page.evaluate(async () => {
      const violations: string[] = [];
      document.addEventListener("securitypolicyviolation", (e) => violations.push(e.effectiveDirective));
      const script = document.createElement("script");
      script.textContent = "window.injected = true;";
      document.body.append(script);
      const style = document.createElement("style");
      style.textContent = "body { background: rgb(255, 0, 0); }";
      document.head.append(style);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return {
        ran: "injected" in window,
        background: getComputedStyle(document.body).backgroundColor,
        violations,
      };
    });
    expect(outcome.ran).toBe(false);
    expect(outcome.background).not.toBe("rgb(255, 0, 0)");
    expect(outcome.violations).toEqual(expect.arrayContaining(["script-src-elem", "style-src-elem"]));
    await page.close();
  });

  it("cannot be framed by another site (frame-ancestors 'none')", async () => {
    const page = await signedIn.context.newPage();
    // Another site's page (localhost is not 127.0.0.1) frames the signed-in keys page.
    await page.route(`${pageBase}/framing`, (route) =>
      route.fulfill({ contentType: "text/html", body: `<iframe src="${base}/dashboard/keys"></iframe>` }),
    );
    await page.goto(`${pageBase}/framing`);
    await expect.poll(() => page.frames().length).toBe(2);
    const framed = page.frames()[1]!;
    await framed.waitForLoadState().catch(() => {});
    // Chromium shows its own error page in the frame instead of the dashboard.
    await expect.poll(() => framed.url()).not.toBe(`${base}/dashboard/keys`);
    expect(await framed.locator("#new-key, form[action='/dashboard/keys/secret']").count()).toBe(0);
    await page.close();
  });

  it("sends no session with another site's form post, so it changes nothing (SameSite=Lax + CSRF)", async () => {
    const page = await signedIn.context.newPage();
    // A page on another site (localhost is not 127.0.0.1) posts a key-creation form to the dashboard.
    const form = `<form method="post" action="${base}/dashboard/keys/secret"><input name="scopes" value="email">
      <button>Go</button></form>`;
    await page.route(`${pageBase}/forged`, (route) => route.fulfill({ contentType: "text/html", body: form }));
    await page.goto(`${pageBase}/forged`);
    const [posted] = await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Go" }).click()]);
    // 401 "Signed out": Chromium did not send the session cookie with another site's post at all.
    expect(posted?.status()).toBe(401);
    expect(await page.locator("h1").textContent()).toBe("Signed out");
    expect(await page.locator("#new-key").count()).toBe(0);
    await signedIn.page.goto(`${base}/dashboard/keys`);
    expect(await signedIn.page.locator("body").textContent()).toContain("No keys yet.");
    await page.close();
  });
});
