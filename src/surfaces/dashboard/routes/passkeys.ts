import { Hono } from "hono";
import { returnPath } from "../../../engines/mail/return-path";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { hitLimit } from "../../../limits/limiter";
import { requestSource } from "../../../limits/source";
import type { DashEnv } from "../context";
import { authenticationOptions, originOf, registerPasskey, registrationOptions, signInWithPasskey } from "../passkeys";
import { startSession } from "../session";

interface Signed<T> {
  challengeId?: string;
  response?: T;
  /** Sign-in only: the page asked for before signing in. */
  next?: unknown;
}

/** Passkey JSON calls of a signed-in user (the page script sends the session's CSRF token as X-CSRF-Token). */
export const passkeyRoutes = new Hono<DashEnv>()
  .post("/passkeys/options", async (c) =>
    c.json(
      await registrationOptions(c.env, originOf(c.req.url), { id: c.var.session.userId, email: c.var.session.email }),
    ),
  )
  .post("/passkeys", async (c) => {
    const body = await c.req
      .json<Signed<RegistrationResponseJSON>>()
      .catch(() => ({}) as Signed<RegistrationResponseJSON>);
    const ok =
      body.challengeId && body.response
        ? await registerPasskey(c.env, originOf(c.req.url), {
            userId: c.var.session.userId,
            challengeId: body.challengeId,
            response: body.response,
          })
        : false;
    return ok
      ? c.json({ registered: true }, 201)
      : c.json({ registered: false, error: "The passkey did not verify." }, 400);
  });

/**
 * Passkey sign-in (signed out): rate-limited per source address like emailed links; asking for options (each stores
 * a challenge) has its own limit per source address.
 */
export const passkeySignInRoutes = new Hono<DashEnv>()
  .post("/sign-in/passkey/options", async (c) => {
    const limit = await hitLimit(c.env, "passkeyOptionsAddress", requestSource(c));
    if (!limit.allowed)
      return c.json({ error: "Too many passkey sign-in attempts." }, 429, {
        "Retry-After": String(limit.retryAfterSeconds),
      });
    return c.json(await authenticationOptions(c.env, originOf(c.req.url)));
  })
  .post("/sign-in/passkey", async (c) => {
    const limit = await hitLimit(c.env, "signInAddress", requestSource(c));
    if (!limit.allowed)
      return c.json({ signed_in: false, error: "Too many sign-in attempts." }, 429, {
        "Retry-After": String(limit.retryAfterSeconds),
      });
    const body = await c.req
      .json<Signed<AuthenticationResponseJSON>>()
      .catch(() => ({}) as Signed<AuthenticationResponseJSON>);
    // Per account too: attempts with one credential count like attempts at one address's sign-in.
    const credential = typeof body.response?.id === "string" ? body.response.id.slice(0, 200) : "none";
    const byAccount = await hitLimit(c.env, "signInAccount", `passkey:${credential}`);
    if (!byAccount.allowed)
      return c.json({ signed_in: false, error: "Too many sign-in attempts." }, 429, {
        "Retry-After": String(byAccount.retryAfterSeconds),
      });
    const who =
      body.challengeId && body.response
        ? await signInWithPasskey(c.env, originOf(c.req.url), body.challengeId, body.response)
        : null;
    if (!who) return c.json({ signed_in: false, error: "The passkey did not verify." }, 400);
    await startSession(c, who.userId, who.accountId);
    return c.json({ signed_in: true, location: returnPath(body.next) ?? "/dashboard" });
  });
