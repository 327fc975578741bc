/**
 * Mail links that arrive (docs/dashboard.md, "Signing in"): a signed-out browser keeps the page it asked for through
 * the sign-in mail (`next`, a dashboard path only), and following the confirmation link offers that browser a
 * one-click sign-in, so a new user needs no second mail.
 */
import { describe, expect, it, vi } from "vitest";
import { returnPath } from "../../../src/engines/mail/return-path";
import { waitForMail } from "../../mail-catcher";
import { Browser, signedUpOwner, uniqueEmail } from "../../dashboard-browser";

vi.setConfig({ testTimeout: 30_000 });

/** Posts the page's first form as the browser would: its action and its hidden fields. */
async function postForm(browser: Browser, page: string) {
  const html = await (await browser.fetch(page)).text();
  const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no form on ${page}`);
  const fields = Object.fromEntries(
    [...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
      m[1]!,
      m[2]!.replaceAll("&amp;", "&"),
    ]),
  );
  return browser.fetch(form[1]!.replaceAll("&amp;", "&"), { form: fields });
}

/** The path (and query) of the newest link to `email` matching `pattern`, on this test Worker. */
async function mailedPath(email: string, n: number, pattern: RegExp) {
  const mails = await waitForMail(email, n);
  const found = pattern.exec(mails[n - 1]!.text)?.[0];
  if (!found) throw new Error(`no link like ${pattern} in ${mails[n - 1]!.text}`);
  const url = new URL(found);
  return `${url.pathname}${url.search}`;
}

const SIGN_IN_LINK = /https:\/\/verify\.test\/dashboard\/sign-in\/link\/[0-9A-Za-z]+(\?next=\S+)?/;

describe("dashboard: a mail link survives sign-in", () => {
  it("a signed-out page keeps its path as next, through the sign-in mail, and lands there once signed in", async () => {
    const { email } = await signedUpOwner("next");
    const browser = new Browser();
    const asked = "/dashboard/monitors?new=entity";
    const gate = await browser.fetch(asked);
    expect([gate.status, gate.headers.get("Location")]).toEqual([
      303,
      `/dashboard/sign-in?next=${encodeURIComponent(asked)}`,
    ]);
    const signIn = gate.headers.get("Location")!;
    const page = await (await browser.fetch(signIn)).text();
    expect(page).toContain(`<input type="hidden" name="next" value="${asked.replace("&", "&amp;")}"/>`);
    expect((await postForm(browser, signIn)).status).toBe(422); // the form without an address: refused, next kept
    const sent = await browser.submit(signIn, "/dashboard/sign-in", { email, next: asked });
    expect(sent.status).toBe(200);
    const link = await mailedPath(email, 3, SIGN_IN_LINK);
    expect(link).toMatch(new RegExp(`\\?next=${encodeURIComponent(asked).replace(/[?]/g, "\\?")}$`));
    const landed = await postForm(browser, link);
    expect([landed.status, landed.headers.get("Location")]).toEqual([303, asked]);
    expect((await browser.fetch(asked)).status).toBe(200);
  });

  it("a next that is not a dashboard path is dropped: the link lands on the dashboard", async () => {
    const { email } = await signedUpOwner("next-foreign");
    const browser = new Browser();
    await browser.submit("/dashboard/sign-in", "/dashboard/sign-in", { email, next: "//evil.example/dashboard" });
    const link = await mailedPath(email, 3, SIGN_IN_LINK);
    expect(link).not.toContain("next=");
    const token = link.split("?")[0]!;
    const landed = await browser.submit(token, token, { next: "https://evil.example/" });
    expect([landed.status, landed.headers.get("Location")]).toEqual([303, "/dashboard"]);
  });

  it.each([
    ["/dashboard/keys", "/dashboard/keys"],
    ["/dashboard/usage?page=2#ledger", "/dashboard/usage?page=2#ledger"],
    ["/dashboard", "/dashboard"],
    ["//evil.example", null],
    ["/\\evil.example", null],
    ["https://evil.example/dashboard", null],
    ["/dashboardx", null],
    ["/dashboard/sign-in", null],
    ["/dashboard/keys\r\nSet-Cookie: x=1", null],
    [`/dashboard/${"a".repeat(600)}`, null],
    [42, null],
  ])("returnPath(%j) is %j", (value, expected) => {
    expect(returnPath(value)).toBe(expected);
  });
});

describe("dashboard: confirming an address signs that browser in", () => {
  it("the confirmation page's button signs the browser in (no second mail) and lands on the keys page", async () => {
    const email = uniqueEmail("confirm-signs-in");
    await new Browser().submit("/dashboard/sign-up", "/dashboard/sign-up", { email });
    const confirm = await mailedPath(email, 1, /https:\/\/verify\.test\/mail\/confirm\/[0-9A-Za-z]+/);
    // Another browser than the one that signed up, as when the mail is opened on a phone.
    const browser = new Browser();
    const page = await browser.fetch(confirm);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Email address confirmed");
    expect(html).toMatch(/<form method="post" action="\/dashboard\/sign-in\/link\/[0-9A-Za-z]{44}">/);
    // The page's form, as the button posts it (the GET used the confirmation link: it is not fetched again).
    const form = /action="(\/dashboard\/sign-in\/link\/[0-9A-Za-z]{44})"/.exec(html)![1]!;
    const csrf = /name="_csrf" value="([0-9A-Za-z]+)"/.exec(html)![1]!;
    const landed = await browser.fetch(form, { form: { _csrf: csrf, next: "/dashboard/keys" } });
    expect([landed.status, landed.headers.get("Location")]).toEqual([303, "/dashboard/keys"]);
    expect((await browser.fetch("/dashboard/keys")).status).toBe(200);
    expect(await waitForMail(email, 1)).toHaveLength(1);
  });

  it("a confirmation link used before offers no sign-in", async () => {
    const email = uniqueEmail("confirm-used");
    await new Browser().submit("/dashboard/sign-up", "/dashboard/sign-up", { email });
    const confirm = await mailedPath(email, 1, /https:\/\/verify\.test\/mail\/confirm\/[0-9A-Za-z]+/);
    await new Browser().fetch(confirm);
    const again = await new Browser().fetch(confirm);
    const html = await again.text();
    expect(html).toContain("Email address already confirmed");
    expect(html).not.toContain("/dashboard/sign-in/link/");
  });
});
