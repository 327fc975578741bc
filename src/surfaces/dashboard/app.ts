import { Hono, type MiddlewareHandler } from "hono";
import { BODY_BYTES, readBytes } from "../../http/body";
import type { AppEnv } from "../../types";
import { handleStripeWebhook } from "./billing/webhook";
import { anonymousCsrf, signedIn, type DashEnv } from "./context";
import { STYLES } from "./pages/layout";
import { LOCAL_TIME_SCRIPT } from "./pages/local-time";
import { accountRoutes } from "./routes/account";
import { bulkRoutes } from "./routes/bulk";
import { COPY_SCRIPT, exampleRoutes } from "./routes/examples";
import { keyRoutes } from "./routes/keys";
import { memberRoutes } from "./routes/members";
import { monitorRoutes } from "./routes/monitors";
import { passkeyRoutes, passkeySignInRoutes } from "./routes/passkeys";
import { policyRoutes } from "./routes/policies";
import { signInRoutes } from "./routes/sign-in";
import { suppressionRoutes } from "./routes/suppressions";
import { tryRoutes } from "./routes/try-it";
import { usageRoutes } from "./routes/usage";
import { dashboardHeaders } from "./security";

/** Pages for a browser without a session; every other dashboard path needs one. */
const SIGNED_OUT = /^\/dashboard\/(sign-in|sign-up|assets)(\/|$)/;

/**
 * One gate for every dashboard path (a sub-app's own `use` would apply to the whole mount point): signed-out pages
 * check the anonymous CSRF token on a post, the rest need a session and its token.
 */
const gate = (): MiddlewareHandler<DashEnv> => {
  const [anonymous, session] = [anonymousCsrf(), signedIn()];
  return (c, next) => (SIGNED_OUT.test(c.req.path) ? anonymous(c, next) : session(c, next));
};

/**
 * Signed-in pages; a new page is one route file mounted here and one entry in NAV (pages/layout.tsx).
 */
const signedInPages = () =>
  new Hono<DashEnv>()
    .get("/", (c) => c.redirect("/dashboard/keys", 303))
    .route("/", keyRoutes)
    .route("/", usageRoutes)
    .route("/", tryRoutes())
    .route("/", bulkRoutes())
    .route("/", exampleRoutes)
    .route("/", monitorRoutes)
    .route("/", policyRoutes)
    .route("/", suppressionRoutes)
    .route("/", memberRoutes)
    .route("/", accountRoutes)
    .route("/", passkeyRoutes);

const dashboard = () =>
  new Hono<DashEnv>()
    .use(dashboardHeaders(), gate())
    .get("/assets/app.css", (c) => c.body(STYLES, 200, { "Content-Type": "text/css; charset=utf-8" }))
    .get("/assets/copy.js", (c) => c.body(COPY_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8" }))
    .get("/assets/local-time.js", (c) =>
      c.body(LOCAL_TIME_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
    )
    .route("/", signInRoutes)
    .route("/", passkeySignInRoutes)
    .route("/", signedInPages());

/**
 * The customer dashboard (docs/dashboard.md), served by this Worker: `/` leads to `/dashboard`, which shows the sign-in
 * page to a browser without a session. Stripe posts its events to `/stripe/webhook`.
 */
export const dashboardRoutes = () =>
  new Hono<AppEnv>()
    .get("/", (c) => c.redirect("/dashboard", 302))
    .route("/dashboard", dashboard() as unknown as Hono<AppEnv>)
    .post("/stripe/webhook", async (c) => {
      const bytes = await readBytes(c, BODY_BYTES.stripe);
      if (!bytes) return c.json({ received: false, error: `The body is over ${BODY_BYTES.stripe} bytes.` }, 413);
      const body = new TextDecoder().decode(bytes);
      const result = await handleStripeWebhook(c.env, body, c.req.header("Stripe-Signature"));
      return "error" in result
        ? c.json({ received: false, error: result.error }, result.status)
        : c.json({ received: true, outcome: result.outcome });
    });
