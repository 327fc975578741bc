import { Hono } from "hono";
import { database } from "../../../db/client";
import { policyRules } from "../../../engines/policy/rules";
import { deletePolicy, readPolicy, writePolicy, type PolicyRow } from "../../../engines/policy/store";
import type { Product } from "../../../engines/product";
import { iso } from "../../../http/time";
import { fieldErrors } from "../../../http/validation";
import { registeredProducts } from "../../../products/registry";
import type { DashContext, DashEnv } from "../context";
import { PoliciesPage, type PoliciesPageProps } from "../pages/policies";

const withPolicy = () => registeredProducts().filter((p) => p.policy);

/** As the API's `GET /{product}/policy` answers it. */
const view = (row: PolicyRow | undefined) =>
  row ? { rules: row.rules, created_at: iso(row.createdAt)!, updated_at: iso(row.updatedAt)! } : null;

const render = async (c: DashContext, shown: Omit<PoliciesPageProps, "session" | "sections"> = {}, status = 200) => {
  const db = database(c.env);
  const sections = await Promise.all(
    withPolicy().map(async (p) => ({
      product: p.name,
      policy: view(await readPolicy(db, c.var.session.accountId, p.name)),
    })),
  );
  return c.html(<PoliciesPage session={c.var.session} sections={sections} {...shown} />, status as 200 | 404 | 422);
};

const productOf = (c: DashContext): Product | undefined => withPolicy().find((p) => p.name === c.req.param("product"));

/**
 * Sending policies through the policy engine, with the API's rules (src/engines/policy/rules.ts): set replaces the
 * whole policy, clear deletes it. Owners and members alike, as through the API any key with the product's scope may.
 */
export const policyRoutes = new Hono<DashEnv>()
  .get("/policies", (c) => render(c))
  .post("/policies/:product", async (c) => {
    const product = productOf(c);
    if (!product) return render(c, { notice: "No such product with a sending policy." }, 404);
    const form = await c.req.parseBody();
    const text = typeof form.rules === "string" ? form.rules : "";
    const refuse = (errors: Record<string, string[]>) =>
      render(c, { refused: { product: product.name, text, errors } }, 422);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refuse({ body: ["The body is not valid JSON."] });
    }
    const parsed = policyRules(product.policy!).safeParse(body);
    if (!parsed.success) return refuse(fieldErrors(parsed.error));
    const rules = parsed.data as Record<string, unknown>;
    const accountId = c.var.session.accountId;
    await writePolicy({ env: c.env, accountId, product: product.name, rules, now: Date.now() });
    return render(c, { notice: `The ${product.name} policy is set.` });
  })
  .post("/policies/:product/clear", async (c) => {
    const product = productOf(c);
    if (!product) return render(c, { notice: "No such product with a sending policy." }, 404);
    const deleted = await deletePolicy(c.env, c.var.session.accountId, product.name);
    return render(c, { notice: deleted ? `The ${product.name} policy is cleared.` : "There was no policy to clear." });
  });
