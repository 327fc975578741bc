import { type Context, Hono } from "hono";
import { forgetAccountKeys } from "../../auth/key-lookup";
import { confirmAccountEmail, type Confirmation } from "../../engines/mail/account-confirmation";
import { unsubscribeByMessage } from "../../engines/mail/unsubscribe";
import { confirmationPage } from "../dashboard/pages/mail-confirmation";
import { issueSignInToken } from "../../engines/mail/sign-in";
import type { AppEnv } from "../../types";
import { page, preferencesPage } from "./mail-preferences";

/**
 * The pages a person reaches from a message (docs/mail.md): `GET /mail/confirm/{token}` confirms the account's email,
 * `GET /mail/unsubscribe/{id}` shows the recipient's preferences page and `POST` there stops all optional mail (RFC
 * 8058 one-click: mail clients POST without showing the page). The confirmation page has the dashboard's look and
 * leads into it; never a secret in them.
 */

const TOKEN = /^[0-9A-Za-z]{1,64}$/;

/**
 * The confirmation page's sign-in button for a browser not signed in, or null. The dashboard's session and CSRF
 * modules load here, on first use, not with the Worker (scripts/build-worker.test.mjs keeps them out of startup).
 */
async function signInOffer(c: Context<AppEnv>, confirmed: { accountId: string; email: string }) {
  const [{ readSession }, { anonymousCsrfToken }] = await Promise.all([
    import("../dashboard/session"),
    import("../dashboard/security"),
  ]);
  if (await readSession(c)) return null;
  const token = await issueSignInToken(c.env, confirmed.accountId, confirmed.email);
  return { action: `/dashboard/sign-in/link/${token}`, csrf: anonymousCsrfToken(c) };
}

export const mailLinkRoutes = new Hono<AppEnv>()
  .get("/mail/confirm/:token", async (c) => {
    const token = c.req.param("token");
    const result: Confirmation = TOKEN.test(token) ? await confirmAccountEmail(c.env, token) : { status: "unknown" };
    // The account's keys were remembered as unconfirmed in this isolate: they work at once.
    if (result.status === "confirmed") forgetAccountKeys(result.accountId);
    // Confirming is proof of the address, as a sign-in link is: the page's button signs this browser in (a POST, as
    // the sign-in link's page does, so a mail scanner that fetches the link signs nobody in).
    const signIn = result.status === "confirmed" ? await signInOffer(c, result) : null;
    const { status, page: body } = confirmationPage(result.status, signIn);
    return c.html(body, status, { "Cache-Control": "no-store" });
  })
  // The link a person follows from the message opens the recipient's preferences page
  // (src/surfaces/api/mail-preferences.ts).
  .get("/mail/unsubscribe/:id", (c) => preferencesPage(c, c.req.param("id")))
  .post("/mail/unsubscribe/:id", async (c) => {
    const id = c.req.param("id");
    const recipient = TOKEN.test(id.replace(/^msg_/, "")) ? await unsubscribeByMessage(c.env, id) : null;
    if (!recipient)
      return c.html(page("Unknown link", "<p>This unsubscribe link is not valid (links last 30 days).</p>"), 404);
    return c.html(page("Unsubscribed", "<p>No more alert or warning emails will be sent to this address.</p>"), 200);
  });
