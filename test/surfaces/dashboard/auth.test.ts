import { describe, expect, it, vi } from "vitest";
import { bearer, call } from "../../helpers";
import { caughtFor, waitForMail } from "../../mail-catcher";
import {
  Browser,
  createSecretKey,
  followLatestLink,
  signInByMail,
  signedUpOwner,
  uniqueEmail,
} from "../../dashboard-browser";

// Each sign-in waits for its mail to reach the local catcher (about a second through the queue and the sidecar).
vi.setConfig({ testTimeout: 30_000 });

const accountCall = (key: string) => call("/api/v1/account", bearer(key, { "CF-Connecting-IP": "198.51.100.78" }));

describe("dashboard: sign-up, confirmation and sign-in by emailed link", () => {
  it("/ leads to /dashboard, which shows the sign-in page to a browser without a session", async () => {
    const browser = new Browser();
    const root = await browser.fetch("/");
    expect([root.status, root.headers.get("Location")]).toEqual([302, "/dashboard"]);
    const dashboard = await browser.fetch("/dashboard");
    expect([dashboard.status, dashboard.headers.get("Location")]).toEqual([303, "/dashboard/sign-in"]);
    const page = await browser.fetch("/dashboard/sign-in");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Email me a sign-in link");
  });

  it("sign-up mails the confirmation link; the keys work once it is followed; the owner signs in by link", async () => {
    const browser = new Browser();
    const email = uniqueEmail("signup");
    const answered = await browser.submit("/dashboard/sign-up", "/dashboard/sign-up", { email });
    expect(answered.status).toBe(200);
    const [confirmation] = await waitForMail(email);
    expect(confirmation!.subject).toBe("Confirm your email address");

    await signInByMail(browser, email, 2);
    const key = await createSecretKey(browser);
    expect((await accountCall(key)).body.error.code).toBe("EMAIL_NOT_VERIFIED");
    await browser.fetch(/https:\/\/verify\.test(\/mail\/confirm\/[0-9A-Za-z]+)/.exec(confirmation!.text)![1]!);
    const account = await accountCall(key);
    expect([account.status, account.body.data.email]).toEqual([200, email]);
  });

  it("the session cookie is HttpOnly, Secure, SameSite=Lax and bound to the host (__Host-)", async () => {
    const { email } = await signedUpOwner("cookie");
    const browser = new Browser();
    const asked = await browser.submit("/dashboard/sign-in", "/dashboard/sign-in", { email });
    expect(asked.status).toBe(200);
    const signedIn = await followLatestLink(browser, email, 3);
    expect([signedIn.status, signedIn.headers.get("Location")]).toEqual([303, "/dashboard"]);
    const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith("__Host-session="))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/i);
    expect((await browser.fetch("/dashboard/keys")).status).toBe(200);
  });

  it("a sign-in link works once; its page alone (a mail scanner's GET) signs nobody in", async () => {
    const { email } = await signedUpOwner("once");
    const browser = new Browser();
    await browser.submit("/dashboard/sign-in", "/dashboard/sign-in", { email });
    const mails = await waitForMail(email, 3);
    const path = /https:\/\/verify\.test(\/dashboard\/sign-in\/link\/[0-9A-Za-z]+)/.exec(mails[2]!.text)![1]!;
    expect((await browser.fetch(path)).status).toBe(200);
    expect(browser.cookies.has("__Host-session")).toBe(false);
    expect((await browser.submit(path, path)).status).toBe(303);
    const again = new Browser();
    expect((await again.submit(path, path)).status).toBe(410);
    expect(again.cookies.has("__Host-session")).toBe(false);
  });

  it("answers the same whether or not an email is known, and mails only the known one", async () => {
    const { email } = await signedUpOwner("known");
    const unknown = uniqueEmail("nobody");
    const [a, b] = [new Browser(), new Browser()];
    const known = await a.submit("/dashboard/sign-in", "/dashboard/sign-in", { email });
    const stranger = await b.submit("/dashboard/sign-in", "/dashboard/sign-in", { email: unknown });
    expect([known.status, [...known.headers.keys()].filter((h) => h !== "x-request-id" && h !== "set-cookie")]).toEqual(
      [stranger.status, [...stranger.headers.keys()].filter((h) => h !== "x-request-id" && h !== "set-cookie")],
    );
    expect(await known.text()).toBe(await stranger.text());
    // Sign-up with a taken address answers the sign-up page's usual answer too.
    const signup = await new Browser().submit("/dashboard/sign-up", "/dashboard/sign-up", { email });
    const fresh = await new Browser().submit("/dashboard/sign-up", "/dashboard/sign-up", {
      email: uniqueEmail("fresh"),
    });
    expect([signup.status, await signup.text()]).toEqual([fresh.status, await fresh.text()]);
    await waitForMail(email, 4);
    expect(await caughtFor(unknown)).toEqual([]);
  });
});

describe("dashboard: rate limits on sign-in attempts", () => {
  it("per email address: the 6th attempt in 15 minutes answers 429 with Retry-After, known or not", async () => {
    // The known address used two attempts already: its sign-up and its owner's sign-in.
    for (const [email, used] of [
      [(await signedUpOwner("limited")).email, 2],
      [uniqueEmail("limited-unknown"), 0],
    ] as const) {
      const statuses: number[] = [];
      for (let i = used; i < 6; i++)
        statuses.push((await new Browser().submit("/dashboard/sign-in", "/dashboard/sign-in", { email })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429].slice(used));
      const refused = await new Browser().submit("/dashboard/sign-in", "/dashboard/sign-in", { email });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
  });

  it("per source address: the 11th attempt from one address answers 429 whatever the email", async () => {
    const browser = new Browser();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push(
        (await browser.submit("/dashboard/sign-in", "/dashboard/sign-in", { email: uniqueEmail("spray") })).status,
      );
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});
