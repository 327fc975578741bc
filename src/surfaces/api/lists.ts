import { Hono } from "hono";
import { z } from "zod";
import { secretPrincipal } from "../../auth/principal";
import { secretKey } from "../../auth/secret-key";
import { database } from "../../db/client";
import { HISTORY_RETENTION_DAYS, listHistory, type HistoryRow } from "../../engines/lists/history";
import { rekeyAll } from "../../engines/lists/account-lists";
import {
  removeSuppression,
  removeSuppressions,
  suppressByHand,
  suppressionBodies,
  suppressionPage,
  type SuppressionRow,
} from "../../engines/lists/suppressions";
import type { Product } from "../../engines/product";
import { ok } from "../../http/envelope";
import { notFound } from "../../http/errors";
import { pageMeta, retainedPageMeta } from "../../http/meta";
import { describe } from "../../http/openapi";
import { productOperationId } from "../../http/operation-ids";
import { dateOrTimestamp, iso, page, PER_PAGE } from "../../http/time";
import { jsonBody, pathParams, queryParams } from "../../http/validation";
import type { AppEnv } from "../../types";

/** `GET, POST, DELETE /{product}/suppressions` and `DELETE /{product}/suppressions/{id}`, for a product with a list. */
export function suppressionRoutes(product: Product) {
  const lists = product.suppressions!;
  const base = `/${product.name}/suppressions`;
  const scope = product.scope;
  const view = (row: SuppressionRow) => ({
    id: row.id,
    [lists.valueField]: row.key,
    reason: row.reason,
    source: row.source,
    created_at: iso(row.createdAt),
  });
  const entry = z.object({
    id: z.int(),
    [lists.valueField]: z.string(),
    reason: z.string(),
    source: z.enum(["verdict", "manual", "feedback"]),
    created_at: z.iso.datetime(),
  });
  const bodies = suppressionBodies(product);
  const listed = (body: Record<string, unknown>) => body[lists.listField] as unknown[];

  return new Hono<AppEnv>()
    .get(
      base,
      describe({
        operationId: productOperationId("list", product.name, "Suppressions"),
        tag: "Lists",
        summary: `The account's ${product.name} suppression list, newest first, 100 a page`,
        description:
          `Values the account never wants answered: batch and bulk runs answer them free with reason ` +
          `\`suppressed\`. Filter by one value with the query. Free.`,
        response: z.object({ suppressions: z.array(entry) }),
        meta: pageMeta,
      }),
      secretKey({ scope }),
      queryParams(z.object({ page, [lists.valueField]: z.string().max(254).optional() })),
      async (c) => {
        const q = c.req.valid("query") as { page: number } & Record<string, string | undefined>;
        const value = q[lists.valueField];
        const { rows, total } = await suppressionPage(database(c.env), secretPrincipal(c).accountId, product, {
          page: q.page,
          key: value === undefined ? undefined : product.normalize(value),
        });
        return ok(c, { suppressions: rows.map(view) }, { page: q.page, per_page: PER_PAGE, total });
      },
    )
    .post(
      base,
      describe({
        operationId: productOperationId("add", product.name, "Suppressions"),
        tag: "Lists",
        summary:
          "Suppress values by hand; batch and bulk runs then answer them free with reason `suppressed`. Test values " +
          "are never suppressed: they come back in `test_values`",
        description:
          "Adds values to the suppression list (normalized like lookups). Values that cannot be read come back in " +
          "`invalid`; test values are never suppressed. Free.",
        status: 201,
        response: z.object({ added: z.int(), invalid: z.array(z.string()), test_values: z.array(z.string()) }),
      }),
      secretKey({ scope }),
      jsonBody(bodies.add),
      async (c) => {
        const body = c.req.valid("json") as Record<string, unknown> & { reason?: string };
        const accountId = secretPrincipal(c).accountId;
        return ok(
          c,
          await suppressByHand(database(c.env), accountId, product, {
            inputs: listed(body),
            reason: body.reason,
          }),
          {},
          201,
        );
      },
    )
    .on(
      "DELETE",
      base,
      describe({
        operationId: productOperationId("remove", product.name, "Suppressions"),
        tag: "Lists",
        summary: "Take values off the suppression list",
        description: "Removes the given values (normalized like lookups); answers how many were removed. Free.",
        response: z.object({ removed: z.int() }),
      }),
      secretKey({ scope }),
      jsonBody(bodies.values),
      async (c) => {
        const keys = listed(c.req.valid("json") as Record<string, unknown>).flatMap(
          (input) => lists.manual(input)?.key ?? [],
        );
        await rekeyAll(database(c.env), {
          table: "suppressions",
          accountId: secretPrincipal(c).accountId,
          product: product.name,
          keys: product.keys,
        });
        return ok(c, {
          removed: await removeSuppressions(database(c.env), secretPrincipal(c).accountId, product.name, [
            ...new Set(keys),
          ]),
        });
      },
    )
    .on(
      "DELETE",
      `${base}/:suppressionId`,
      describe({
        operationId: productOperationId("delete", product.name, "Suppression"),
        tag: "Lists",
        summary: "Remove one suppression entry",
        description: "Removes one entry by its id. Another account's entry is 404. Free.",
        response: entry,
        errors: ["NOT_FOUND"],
      }),
      secretKey({ scope }),
      pathParams(z.object({ suppressionId: z.coerce.number().int().min(1) })),
      async (c) => {
        const row = await removeSuppression(
          database(c.env),
          secretPrincipal(c).accountId,
          product.name,
          c.req.valid("param").suppressionId,
        );
        if (!row) throw notFound("Suppression entry");
        return ok(c, view(row));
      },
    );
}

/** `GET /{product}/history`: every answer of the account (test values excepted), newest first, with filters. */
export function historyRoutes(product: Product) {
  const shape = product.history!;
  const f = shape.fields;
  const view = (r: HistoryRow) => ({
    id: r.id,
    request_id: r.requestId,
    [f.value]: r.value,
    [f.key]: r.key,
    [f.verdict]: r.verdict,
    reason: r.reason,
    credits_used: r.creditsUsed,
    cache_hit: r.cacheHit,
    suppressed: r.suppressed,
    created_at: iso(r.createdAt),
  });
  const row = z.object({
    id: z.int(),
    request_id: z.string(),
    [f.value]: z.string(),
    [f.key]: z.string(),
    [f.verdict]: z.enum(shape.verdicts),
    reason: z.string().nullable(),
    credits_used: z.int(),
    cache_hit: z.boolean(),
    suppressed: z.boolean(),
    created_at: z.iso.datetime(),
  });
  const query = z.object({
    page,
    since: dateOrTimestamp(false).optional(),
    until: dateOrTimestamp(true).optional(),
    [f.verdict]: z.enum(shape.verdicts).optional(),
    [f.value]: z.string().max(254).optional(),
  });
  return new Hono<AppEnv>().get(
    `/${product.name}/history`,
    describe({
      operationId: productOperationId("list", product.name, "History"),
      tag: "Lists",
      summary:
        `Every ${product.name} answer of the account (test values excepted), newest first, kept ` +
        `${HISTORY_RETENTION_DAYS} days`,
      description:
        `What the account's ${product.name} lookups answered (single, batch, bulk, monitors), newest ` +
        `first, 100 a page; test values are not kept. Free.`,
      response: z.object({ lookups: z.array(row) }),
      meta: retainedPageMeta,
    }),
    secretKey({ scope: product.scope }),
    queryParams(query),
    async (c) => {
      const q = c.req.valid("query") as { page: number; since?: number; until?: number } & Record<string, unknown>;
      const value = q[f.value] as string | undefined;
      const filter = {
        page: q.page,
        since: q.since,
        until: q.until,
        verdict: q[f.verdict] as string | undefined,
        key: value === undefined ? undefined : product.normalize(value),
      };
      const { rows, total } = await listHistory(database(c.env), secretPrincipal(c).accountId, product.name, filter);
      return ok(
        c,
        { lookups: rows.map(view) },
        { page: q.page, per_page: PER_PAGE, total, retention_days: HISTORY_RETENTION_DAYS },
      );
    },
  );
}
