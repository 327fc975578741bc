import { Hono } from "hono";
import { z } from "zod";
import type { DashContext, DashEnv } from "../context";
import {
  createPublishableKey,
  createSecretKey,
  listKeys,
  publishableKeyForm,
  revokeAccountKey,
  rotateFeedbackKey,
  secretKeyForm,
  type NewKey,
} from "../keys";
import { KeysPage, type KeysPageProps } from "../pages/keys";

const render = async (c: DashContext, props: Omit<KeysPageProps, "session" | "keys">, status: 200 | 404 | 422 = 200) =>
  c.html(<KeysPage session={c.var.session} keys={await listKeys(c.env, c.var.session.accountId)} {...props} />, status);

/** Create from a form: 422 with the fields' errors, or the page with the new key shown once. */
async function create<S extends z.ZodType>(
  c: DashContext,
  schema: S,
  label: string,
  make: (form: z.infer<S>) => Promise<NewKey>,
) {
  const parsed = schema.safeParse(await c.req.parseBody({ all: true }));
  if (!parsed.success)
    return render(c, { errors: z.flattenError(parsed.error).fieldErrors as Record<string, string[]> }, 422);
  const created = await make(parsed.data);
  return render(c, { shown: { label, key: created.key } });
}

/** The keys page: list, create secret and publishable keys, revoke, rotate the feedback key. */
export const keyRoutes = new Hono<DashEnv>()
  .get("/keys", (c) => render(c, {}))
  .post("/keys/secret", (c) =>
    create(c, secretKeyForm, "Your new secret key", (form) =>
      createSecretKey(c.env, c.var.session.accountId, c.var.session.userId, form),
    ),
  )
  .post("/keys/publishable", (c) =>
    create(c, publishableKeyForm, "Your new publishable key", (form) =>
      createPublishableKey(c.env, c.var.session.accountId, c.var.session.userId, form),
    ),
  )
  .post("/keys/:keyId/revoke", async (c) => {
    const done = await revokeAccountKey(c.env, c.var.session.accountId, c.req.param("keyId"));
    return render(
      c,
      done ? { notice: "The key is revoked." } : { errors: { key: ["No such key in this account."] } },
      done ? 200 : 404,
    );
  })
  .post("/keys/feedback/rotate", async (c) =>
    render(c, {
      shown: { label: "Your new feedback key", key: await rotateFeedbackKey(c.env, c.var.session.accountId) },
    }),
  );
