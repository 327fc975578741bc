import { Hono } from "hono";
import type { DashContext, DashEnv } from "../context";
import { listKeys } from "../keys";
import { TryPage, type TryPageProps } from "../pages/try-it";
import { isAccountKey, runTry, tryForms } from "../try-it";

/**
 * A body bigger than this is refused before it reaches the API (the single lookups' bodies are a few hundred bytes).
 */
const BODY_MAX = 16_384;

const render = async (c: DashContext, sent?: TryPageProps["sent"], status: 200 | 404 | 422 = 200) =>
  c.html(
    <TryPage
      session={c.var.session}
      forms={tryForms()}
      keys={await listKeys(c.env, c.var.session.accountId)}
      sent={sent}
    />,
    status,
  );

/**
 * Try it: a form per product posts the key and a JSON body; the dashboard checks the key belongs to the account and
 * runs the body as the API request it stands for (src/surfaces/dashboard/try-it.ts). The API's status shows on the
 * page, which itself answers 200.
 */
export const tryRoutes = () =>
  new Hono<DashEnv>()
    .get("/try", (c) => render(c))
    .post("/try/:product", async (c) => {
      const form = tryForms().find((f) => f.product === c.req.param("product"));
      if (!form) return render(c, undefined, 404);
      const fields = await c.req.parseBody();
      const [key, body] = [String(fields.key ?? "").trim(), String(fields.body ?? "")];
      const errors: string[] = [];
      if (!(await isAccountKey(c.env, c.var.session.accountId, key, c.req.header("CF-Connecting-IP"))))
        errors.push("key: Paste a secret key of this account (sk_live_...).");
      if (body.length > BODY_MAX) errors.push(`body: At most ${BODY_MAX} characters.`);
      else {
        try {
          JSON.parse(body);
        } catch {
          errors.push("body: Must be JSON.");
        }
      }
      if (errors.length) return render(c, { product: form.product, body: body.slice(0, BODY_MAX), errors }, 422);
      return render(c, { product: form.product, body, answer: await runTry(c, form, key, body) });
    });
