import { Hono } from "hono";
import { z } from "zod";
import { hitLimit } from "../../../limits/limiter";
import { requestSource } from "../../../limits/source";
import { returnPath } from "../../../engines/mail/return-path";
import { queueSelfServiceMail, type SelfServiceMessage } from "../../../engines/mail/self-service";
import { signInWithLink } from "../accounts";
import type { DashContext, DashEnv } from "../context";
import { CheckInboxPage, FollowLinkPage, MessagePage, SignInPage, SignUpPage } from "../pages/sign-in";
import { anonymousCsrfToken } from "../security";
import { readSession, startSession } from "../session";

const emailField = z.object({ email: z.email().max(254) });
const TOKEN = /^[0-9A-Za-z]{1,64}$/;

/**
 * Counts a sign-in or sign-up attempt per source address and per email address; both count whether or not the email
 * is known, so the refusal says nothing about it either.
 */
async function attemptAllowed(c: DashContext, email: string): Promise<number | null> {
  const [byAddress, byAccount] = await Promise.all([
    hitLimit(c.env, "signInAddress", requestSource(c)),
    hitLimit(c.env, "signInAccount", email),
  ]);
  if (byAddress.allowed && byAccount.allowed) return null;
  return Math.max(
    byAddress.allowed ? 0 : byAddress.retryAfterSeconds,
    byAccount.allowed ? 0 : byAccount.retryAfterSeconds,
  );
}

/**
 * Answers a sign-in or sign-up form: the same page and status for every address, and the same work: the limits, then
 * one queue message. Whether the address is known is found out on the queue, after the answer, where its time tells
 * nobody anything (src/engines/mail/self-service.ts).
 */
async function mailRequest(c: DashContext, form: SelfServiceMessage["form"]) {
  const body = await c.req.parseBody();
  const next = returnPath(body.next);
  const parsed = emailField.safeParse(body);
  if (!parsed.success)
    return c.html(<SignInPage csrf={anonymousCsrfToken(c)} notice="Enter a valid email address." next={next} />, 422);
  const email = parsed.data.email.toLowerCase();
  const retryAfter = await attemptAllowed(c, email);
  if (retryAfter !== null) {
    c.header("Retry-After", String(retryAfter));
    return c.html(
      <MessagePage
        title="Too many attempts"
        message={`Too many sign-in attempts. Try again in ${Math.ceil(retryAfter / 60)} minutes.`}
      />,
      429,
    );
  }
  await queueSelfServiceMail(c.env, { form, email, requestId: c.var.requestId, ...(next ? { next } : {}) });
  return c.html(<CheckInboxPage />, 200);
}

/** Signed-out pages: sign in (link or passkey), sign up, follow a link. */
export const signInRoutes = new Hono<DashEnv>()
  .get("/sign-in", async (c) => {
    const next = returnPath(c.req.query("next"));
    if (await readSession(c)) return c.redirect(next ?? "/dashboard", 303);
    return c.html(<SignInPage csrf={anonymousCsrfToken(c)} next={next} />);
  })
  .post("/sign-in", (c) => mailRequest(c, "sign_in"))
  .get("/sign-up", (c) => c.html(<SignUpPage csrf={anonymousCsrfToken(c)} />))
  .post("/sign-up", (c) => mailRequest(c, "sign_up"))
  .get("/sign-in/link/:token", (c) =>
    c.html(
      <FollowLinkPage
        csrf={anonymousCsrfToken(c)}
        action={`/dashboard/sign-in/link/${encodeURIComponent(c.req.param("token"))}`}
        next={returnPath(c.req.query("next"))}
      />,
    ),
  )
  .post("/sign-in/link/:token", async (c) => {
    const token = c.req.param("token");
    const next = returnPath((await c.req.parseBody()).next);
    const signedIn = TOKEN.test(token) ? await signInWithLink(c.env, token) : null;
    if (!signedIn)
      return c.html(
        <MessagePage
          title="Link not valid"
          message="This sign-in link is unknown, used or expired. Ask for a new one."
        />,
        410,
      );
    await startSession(c, signedIn.userId, signedIn.accountId);
    return c.redirect(next ?? "/dashboard", 303);
  });
