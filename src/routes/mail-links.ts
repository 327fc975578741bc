import { Hono } from "hono";
import { forgetAccountKeys } from "../auth/key-lookup";
import { confirmAccountEmail, type Confirmation } from "../engines/mail/account-confirmation";
import { escapeHtml } from "../engines/mail/compose";
import { unsubscribeByMessage } from "../engines/mail/unsubscribe";
import type { AppEnv } from "../types";

/**
 * The pages a person reaches from a message (docs/mail.md): `GET /mail/confirm/{token}` confirms the account's email,
 * `GET /mail/unsubscribe/{id}` offers to stop optional mail and `POST` there stops it (RFC 8058 one-click: mail
 * clients POST without showing the page). Plain HTML; never a secret in them.
 */
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;

const CONFIRM_PAGES: Record<Confirmation["status"], [number, string, string]> = {
  confirmed: [200, "Email address confirmed", "<p>Your account's API keys work now.</p>"],
  already_confirmed: [200, "Email address already confirmed", "<p>This link was used before; your account's API keys work.</p>"],
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
  .get("/mail/unsubscribe/:id", (c) => {
    const action = `/mail/unsubscribe/${encodeURIComponent(c.req.param("id"))}`;
    const form = `<p>Stop alert and warning emails to this address? Confirmation links are still sent.</p><form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>`;
    return c.html(page("Unsubscribe", form), 200, { "Cache-Control": "no-store" });
  })
  .post("/mail/unsubscribe/:id", async (c) => {
    const id = c.req.param("id");
    const recipient = TOKEN.test(id.replace(/^msg_/, "")) ? await unsubscribeByMessage(c.env, id) : null;
    if (!recipient) return c.html(page("Unknown link", "<p>This unsubscribe link is not valid (links last 30 days).</p>"), 404);
    return c.html(page("Unsubscribed", "<p>No more alert or warning emails will be sent to this address.</p>"), 200);
  });
