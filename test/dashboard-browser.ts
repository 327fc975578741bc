import { SELF } from "cloudflare:test";
import { waitForMail } from "./mail-catcher";

export const ORIGIN = "https://api.test";
let sequence = 0;
export const uniqueEmail = (label: string) => `${label}-${Date.now()}-${++sequence}@example.com`;
let ipSequence = 0;

/**
 * A browser for the dashboard tests: keeps cookies (as Chromium would for https://api.test), sends its own source
 * address (so rate limits of one test never reach another), and reads the CSRF token its pages carry.
 */
export class Browser {
  readonly cookies = new Map<string, string>();

  /** `ip`: the source address to send (an address of its own unless given). */
  constructor(readonly ip = `198.18.${Math.floor(++ipSequence / 250)}.${(ipSequence % 250) + 1}`) {}

  async fetch(
    path: string,
    init: RequestInit & { form?: Record<string, string | string[]>; origin?: string | null } = {},
  ) {
    const headers = new Headers(init.headers);
    headers.set("CF-Connecting-IP", this.ip);
    if (this.cookies.size) headers.set("Cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    let body = init.body;
    if (init.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(init.form)) for (const one of [v].flat()) params.append(k, one);
      body = params.toString();
      headers.set("Content-Type", "application/x-www-form-urlencoded");
    }
    const method = init.method ?? (init.form ? "POST" : "GET");
    if (method !== "GET" && init.origin !== null) headers.set("Origin", init.origin ?? ORIGIN);
    const response = await SELF.fetch(`${ORIGIN}${path}`, { method, headers, body, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, value] = pair!.split("=");
      if (/max-age=0/i.test(cookie) || value === "") this.cookies.delete(name!);
      else this.cookies.set(name!, value!);
    }
    return response;
  }

  /** The page's CSRF token (the first `_csrf` field, or the main element's data-csrf). */
  async token(path: string): Promise<string> {
    const html = await (await this.fetch(path)).text();
    const match = /name="_csrf" value="([0-9A-Za-z]+)"/.exec(html) ?? /data-csrf="([0-9A-Za-z]+)"/.exec(html);
    if (!match) throw new Error(`no CSRF token on ${path}`);
    return match[1]!;
  }

  /** Posts a form of a page the way the page would: its token, same origin. */
  async submit(page: string, action: string, form: Record<string, string | string[]> = {}) {
    return this.fetch(action, { form: { _csrf: await this.token(page), ...form } });
  }
}

export const signInLink = (text: string) =>
  /https:\/\/verify\.test(\/dashboard\/sign-in\/link\/[0-9A-Za-z]+)/.exec(text)?.[1];

/** Asks for a sign-in link, takes the `n`th mail to that address and follows it: the browser is signed in. */
export async function signInByMail(browser: Browser, email: string, n = 1): Promise<Response> {
  const asked = await browser.submit("/dashboard/sign-in", "/dashboard/sign-in", { email });
  if (asked.status !== 200) throw new Error(`sign-in request answered ${asked.status}`);
  return followLatestLink(browser, email, n);
}

export async function followLatestLink(browser: Browser, email: string, n = 1): Promise<Response> {
  const mails = await waitForMail(email, n);
  const path = signInLink(mails[n - 1]!.text);
  if (!path) throw new Error(`no sign-in link in ${mails[n - 1]!.text}`);
  return browser.submit(path, path);
}

/** A new account through the sign-up page, confirmed by its mailed link, its owner signed in. */
export async function signedUpOwner(label = "owner") {
  const browser = new Browser();
  const email = uniqueEmail(label);
  await browser.submit("/dashboard/sign-up", "/dashboard/sign-up", { email });
  const [confirmation] = await waitForMail(email);
  const confirm = /https:\/\/verify\.test(\/mail\/confirm\/[0-9A-Za-z]+)/.exec(confirmation!.text)![1]!;
  await browser.fetch(confirm);
  await signInByMail(browser, email, 2);
  return { browser, email };
}

/** Creates a secret key on the keys page and returns it (shown once). */
export async function createSecretKey(browser: Browser, form: Record<string, string | string[]> = {}) {
  const response = await browser.submit("/dashboard/keys", "/dashboard/keys/secret", {
    scopes: ["account", "email"],
    ...form,
  });
  const html = await response.text();
  const key = /id="new-key">(sk_live_[0-9A-Za-z]+)</.exec(html)?.[1];
  if (!key) throw new Error(`no key shown (${response.status}): ${html.slice(0, 600)}`);
  return key;
}
