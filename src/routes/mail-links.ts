import { Hono } from "hono";
import { forgetAccountKeys } from "../auth/key-lookup";
import { confirmAccountEmail, type Confirmation } from "../engines/mail/account-confirmation";
import { unsubscribeByMessage } from "../engines/mail/unsubscribe";
import type { AppEnv } from "../types";
import { page, preferencesPage } from "./mail-preferences";

/**
 * The pages a person reaches from a message (docs/mail.md): `GET /mail/confirm/{token}` confirms the account's email,
 * `GET /mail/unsubscribe/{id}` shows the recipient's preferences page and `POST` there stops all optional mail (RFC
 * 8058 one-click: mail clients POST without showing the page). Plain HTML; never a secret in them.
 */

const CONFIRM_PAGES: Record<Confirmation["status"], [number, string, string]> = {
  confirmed: [200, "Email address confirmed", "<p>Your account's API keys work now.</p>"],
  already_confirmed: [
    200,
    "Email address already confirmed",
    "<p>This link was used before; your account's API keys work.</p>",
  ],
  used: [410, "Link already used", "<p>Ask for a new confirmation link.</p>"],
  expired: [410, "Link expired", "<p>Confirmation links work for 48 hours. Ask for a new one.</p>"],
  unknown: [404, "Unknown link", "<p>This link is not valid. Ask for a new confirmation link.</p>"],
};

const TOKEN = /^[0-9A-Za-z]{1,64}$/;

export const mailLinkRoutes = new Hono<AppEnv>()
  .get("/mail/confirm/:token", async (c) => {
    const token = c.req.param("token");
    const result: Confirmation = TOKEN.test(token) ? await confirmAccountEmail(c.env, token) : { status: "unknown" };
    // The account's keys were remembered as unconfirmed in this isolate: they work at once.
    if (result.status === "confirmed") forgetAccountKeys(result.accountId);
    const [status, title, body] = CONFIRM_PAGES[result.status];
    return c.html(page(title, body), status as 200 | 404 | 410, { "Cache-Control": "no-store" });
  })
  // The link a person follows from the message opens the recipient's preferences page (src/routes/mail-preferences.ts).
  .get("/mail/unsubscribe/:id", (c) => preferencesPage(c, c.req.param("id")))
  .post("/mail/unsubscribe/:id", async (c) => {
    const id = c.req.param("id");
    const recipient = TOKEN.test(id.replace(/^msg_/, "")) ? await unsubscribeByMessage(c.env, id) : null;
    if (!recipient)
      return c.html(page("Unknown link", "<p>This unsubscribe link is not valid (links last 30 days).</p>"), 404);
    return c.html(page("Unsubscribed", "<p>No more alert or warning emails will be sent to this address.</p>"), 200);
  });
