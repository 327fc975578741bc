import { Hono } from "hono";
import { z } from "zod";
import { secretPrincipal } from "../../auth/principal";
import { secretKey } from "../../auth/secret-key";
import { database } from "../../db/client";
import { policyRules } from "../../engines/policy/rules";
import { deletePolicy, readPolicy, writePolicy, type PolicyRow } from "../../engines/policy/store";
import type { Product } from "../../engines/product";
import { ok } from "../../http/envelope";
import { describe } from "../../http/openapi";
import { productOperationId } from "../../http/operation-ids";
import { iso } from "../../http/time";
import { jsonBody } from "../../http/validation";
import type { AppEnv } from "../../types";

const view = (row: PolicyRow | undefined) =>
  row ? { rules: row.rules, created_at: iso(row.createdAt), updated_at: iso(row.updatedAt) } : null;

/**
 * `GET, PUT, DELETE /{product}/policy` for a product that declares a policy: one per account, replaced whole by PUT
 * (validated by the product's rule schema), free. Answers then carry `policy: {action, rules_hit}`; no policy is
 * `{policy: null}`, not an error.
 */
export function policyRoutes(product: Product) {
  const shape = product.policy!;
  const path = `/${product.name}/policy`;
  const auth = secretKey({ scope: product.scope });
  const tag = "Policy";
  const rules = policyRules(shape);
  const response = z.object({
    policy: z.object({ rules: shape.rules, created_at: z.iso.datetime(), updated_at: z.iso.datetime() }).nullable(),
  });
  const ownPolicy = (c: Parameters<typeof secretPrincipal>[0]) => ({
    db: database(c.env),
    accountId: secretPrincipal(c).accountId,
  });
  return new Hono<AppEnv>()
    .get(
      path,
      describe({
        operationId: productOperationId("get", product.name, "Policy"),
        tag,
        summary: `The account's ${product.name} sending policy, or null`,
        description:
          `The rules that decide \`policy.action\` (\`send\`, \`review\`, \`block\`) on every ` +
          `${product.name} answer of the account; null when none is set. Free.`,
        response,
      }),
      auth,
      async (c) => {
        const { db, accountId } = ownPolicy(c);
        return ok(c, { policy: view(await readPolicy(db, accountId, product.name)) });
      },
    )
    .put(
      path,
      describe({
        operationId: productOperationId("replace", product.name, "Policy"),
        tag,
        summary: `Replace the ${product.name} sending policy; it never changes a price`,
        description:
          "Replaces the whole policy. From the next lookup, every answer carries `policy: {action, rules_hit}` and " +
          "bulk CSVs the `policy_action` and `policy_rules_hit` columns. A policy never changes what a lookup " +
          "costs. Free.",
        response,
      }),
      auth,
      jsonBody(rules),
      async (c) => {
        const { accountId } = ownPolicy(c);
        const body = c.req.valid("json") as Record<string, unknown>;
        return ok(c, {
          policy: view(
            await writePolicy({ env: c.env, accountId, product: product.name, rules: body, now: Date.now() }),
          ),
        });
      },
    )
    .on(
      "DELETE",
      path,
      describe({
        operationId: productOperationId("delete", product.name, "Policy"),
        tag,
        summary: "Remove the sending policy; answers then carry policy: null",
        description: "Deletes the policy; `deleted` is false when there was none. Free.",
        response: z.object({ deleted: z.boolean() }),
      }),
      auth,
      async (c) => {
        const { accountId } = ownPolicy(c);
        return ok(c, { deleted: await deletePolicy(c.env, accountId, product.name) });
      },
    );
}
