import { Hono, type Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { BODY_BYTES, readBytes } from "../../http/body";
import { randomToken } from "../../platform/tokens";
import { database } from "../../db/client";
import { escapeHtml } from "../../engines/mail/compose";
import {
  isOptionalKind,
  OPTIONAL_KINDS,
  preferencesOf,
  recipientOfMessage,
  savePreferences,
  type OptionalKind,
  type Preferences,
} from "../../engines/mail/preferences";
import type { AppEnv } from "../../types";

/**
 * The recipient's preferences page, reached by the unsubscribe link of any optional message
 * (`GET /mail/unsubscribe/{message id}`): one form that says which optional kinds this address gets, posted to
 * `POST /mail/preferences/{message id}`. The message id (random, only in that recipient's mail) names the recipient.
 * The form is CSRF-safe twice over: hono's csrf middleware refuses a form post whose Origin (or Sec-Fetch-Site) is
 * not this site, and the form carries a token that must equal a SameSite=Strict cookie set with the page (a page of
 * another site can neither read the cookie nor make the browser send it).
 */
const COOKIE = "mail_prefs_csrf";
const ID = /^msg_[0-9A-Za-z]{1,64}$/;

/** A page with the dashboard's look (its stylesheet, the narrow column of its signed-out pages). */
export const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
  `content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Verification API</title>` +
  `<link rel="stylesheet" href="/dashboard/assets/app.css"><link rel="icon" href="data:,"></head>` +
  `<body><main class="narrow"><h1>${escapeHtml(title)}</h1><section>${body}</section></main></body></html>`;

function form(id: string, prefs: Preferences, token: string, saved: boolean): string {
  const boxes = (Object.entries(OPTIONAL_KINDS) as [OptionalKind, string][])
    .map(
      ([kind, label]) =>
        `<p><label><input type="checkbox" name="kinds" value="${kind}"${
          prefs.receives.includes(kind) ? " " + "checked" : ""
        }> ${escapeHtml(label)}</label></p>`,
    )
    .join("");
  const notes = [
    saved ? "<p><strong>Saved.</strong></p>" : "",
    prefs.unsubscribed
      ? "<p>This address is unsubscribed from every optional email. Tick a kind to get it again.</p>"
      : "",
    prefs.undeliverable
      ? "<p>Mail to this address was refused for good by its mail server, so no optional email is sent to it.</p>"
      : "",
  ].join("");
  return [
    `<p>Emails to <strong>${escapeHtml(prefs.recipient)}</strong>. Account confirmation and sign-in links are always ` +
      `sent.</p>`,
    notes,
    `<form method="post" action="/mail/preferences/${escapeHtml(id)}"><input type="hidden" name="csrf" ` +
      `value="${escapeHtml(token)}">${boxes}<p><button type="submit">Save</button></p></form>`,
    `<form method="post" action="/mail/unsubscribe/${escapeHtml(id)}"><p><button type="submit">Unsubscribe from all ` +
      `optional email</button></p></form>`,
  ].join("");
}

/** A fresh form token, also set as the cookie it must match (HttpOnly, SameSite=Strict, only under /mail/). */
function issueToken(c: Context<AppEnv>): string {
  const token = randomToken(32);
  setCookie(c, COOKIE, token, {
    path: "/mail/",
    httpOnly: true,
    sameSite: "Strict",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: 3600,
  });
  return token;
}

const noStore = { "Cache-Control": "no-store" };
const unknown = (c: Context<AppEnv>) =>
  c.html(page("Unknown link", "<p>This link is not valid (links last 30 days).</p>"), 404, noStore);
const tooLarge = (c: Context<AppEnv>) =>
  c.html(page("Not saved", "<p>This form sent more than a preferences form holds.</p>"), 413, noStore);
const forbidden = (c: Context<AppEnv>) =>
  c.html(
    page("Not saved", "<p>This form did not come from this page. Open the link from your email again.</p>"),
    403,
    noStore,
  );

/** The site's own origins: the one the request reached, and the one links are sent with (MAIL_BASE_URL). */
const ownOrigin = (origin: string, c: Context<AppEnv>) =>
  origin === new URL(c.req.url).origin || origin === URL.parse(c.env.MAIL_BASE_URL)?.origin;
const checkOrigin = csrf({ origin: ownOrigin });

export async function preferencesPage(c: Context<AppEnv>, id: string) {
  const recipient = ID.test(id) ? await recipientOfMessage(database(c.env), id) : null;
  if (!recipient) return unknown(c);
  return c.html(
    page("Email preferences", form(id, await preferencesOf(database(c.env), recipient), issueToken(c), false)),
    200,
    noStore,
  );
}

export const mailPreferenceRoutes = new Hono<AppEnv>().post(
  "/mail/preferences/:id",
  async (c, next) => {
    // hono's csrf throws a 403 HTTPException before the handler runs; it is answered as this page, not as an API error.
    try {
      await checkOrigin(c, next);
    } catch (err) {
      if (err instanceof HTTPException && err.status === 403) return forbidden(c);
      throw err;
    }
  },
  async (c) => {
    const id = c.req.param("id");
    const db = database(c.env);
    const recipient = ID.test(id) ? await recipientOfMessage(db, id) : null;
    if (!recipient) return unknown(c);
    if (!(await readBytes(c, BODY_BYTES.anonymousForm))) return tooLarge(c);
    const body = await c.req.parseBody({ all: true });
    const cookie = getCookie(c, COOKIE);
    if (!cookie || body.csrf !== cookie) return forbidden(c);
    const chosen = ([] as unknown[])
      .concat(body.kinds ?? [])
      .filter((k): k is OptionalKind => typeof k === "string" && isOptionalKind(k));
    const prefs = await savePreferences(db, recipient, [...new Set(chosen)]);
    return c.html(page("Email preferences", form(id, prefs, issueToken(c), true)), 200, noStore);
  },
);
