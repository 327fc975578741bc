import { and, count, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { secretKey } from "../auth/secret-key";
import { database } from "../db/client";
import { emailHistory, emailSuppressions } from "../db/schema";
import { ok } from "../http/envelope";
import { notFound } from "../http/errors";
import { describe } from "../http/openapi";
import { jsonBody, pathParams, queryParams } from "../http/validation";
import { manualSuppression } from "../products/email/answer";
import { extractAddress } from "../products/email/extract";
import { HISTORY_RETENTION_DAYS } from "../products/email/store";
import { parseAddress } from "../products/email/syntax";
import { normalizeAddress } from "../products/email/username";
import type { AppEnv } from "../types";

export const PER_PAGE = 100;

const iso = (ms: number) => new Date(ms).toISOString();
const page = z.coerce.number().int().min(1).default(1);

/** A date (`2026-11-01`, whole day for `until`) or an ISO timestamp, as Unix ms. */
export const dateOrTimestamp = (endOfDay: boolean) =>
  z.string().transform((value, ctx) => {
    const bareDate = /^\d{4}-\d{2}-\d{2}$/.test(value);
    const ms = Date.parse(bareDate ? `${value}T00:00:00Z` : value);
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: "custom", message: "Must be a date (YYYY-MM-DD) or an ISO 8601 timestamp." });
      return z.NEVER;
    }
    return bareDate && endOfDay ? ms + 86_400_000 : ms + (endOfDay ? 1 : 0);
  });

const accountOf = (c: Context<AppEnv>) => {
  const principal = c.var.principal;
  if (principal?.kind !== "secret") throw new Error("email list routes need a secret-key principal");
  return principal.accountId;
};

/** Normalized addresses of well-formed inputs; malformed ones are reported back, not stored. */
function normalizeAll(inputs: string[]) {
  const valid = new Map<string, string>();
  const invalid: string[] = [];
  for (const input of inputs) {
    const email = extractAddress(input);
    const parsed = parseAddress(email);
    if (!parsed) invalid.push(input);
    else valid.set(normalizeAddress(parsed.local, parsed.domain).normalizedEmail, `${parsed.local}@${parsed.domain}`);
  }
  return { valid, invalid };
}

const suppressionView = (row: typeof emailSuppressions.$inferSelect) => ({
  id: row.id,
  email: row.email,
  reason: row.reason,
  source: row.source,
  created_at: iso(row.createdAt),
});

const suppressionSchema = z.object({
  id: z.int(),
  email: z.string(),
  reason: z.string(),
  source: z.enum(["verdict", "manual"]),
  created_at: z.iso.datetime(),
});

const emailList = z.object({ emails: z.array(z.string().max(254)).min(1).max(1000) });

export const emailListRoutes = new Hono<AppEnv>()
  .get(
    "/email/suppressions",
    describe({ tag: "Email", summary: "The account's suppression list, newest first, 100 a page", response: z.object({ suppressions: z.array(suppressionSchema) }) }),
    secretKey({ scope: "email" }),
    queryParams(z.object({ page, email: z.string().max(254).optional() })),
    async (c) => {
      const query = c.req.valid("query");
      const where = and(
        eq(emailSuppressions.accountId, accountOf(c)),
        query.email ? eq(emailSuppressions.email, normalizeAll([query.email]).valid.keys().next().value ?? query.email) : undefined,
      );
      const db = database(c.env);
      const [rows, [total]] = await Promise.all([
        db.select().from(emailSuppressions).where(where).orderBy(desc(emailSuppressions.id)).limit(PER_PAGE).offset((query.page - 1) * PER_PAGE),
        db.select({ n: count() }).from(emailSuppressions).where(where),
      ]);
      return ok(c, { suppressions: rows.map(suppressionView) }, { page: query.page, per_page: PER_PAGE, total: total?.n ?? 0 });
    },
  )
  .post(
    "/email/suppressions",
    describe({
      tag: "Email",
      summary: "Suppress addresses by hand; batch and bulk runs then answer them free with reason `suppressed`",
      response: z.object({ added: z.int(), invalid: z.array(z.string()) }),
    }),
    secretKey({ scope: "email" }),
    jsonBody(emailList.extend({ reason: z.string().min(1).max(64).optional() })),
    async (c) => {
      const body = c.req.valid("json");
      const accountId = accountOf(c);
      const { valid, invalid } = normalizeAll(body.emails);
      const now = Date.now();
      const db = database(c.env);
      const rows = [...valid].map(([normalized, email]) => ({
        accountId,
        email: normalized,
        reason: body.reason ?? "manual",
        source: "manual" as const,
        result: manualSuppression(email, normalized),
        createdAt: now,
      }));
      let added = 0;
      for (let i = 0; i < rows.length; i += 10) {
        const inserted = await db.insert(emailSuppressions).values(rows.slice(i, i + 10)).onConflictDoNothing().returning({ id: emailSuppressions.id });
        added += inserted.length;
      }
      return ok(c, { added, invalid }, {}, 201);
    },
  )
  .delete(
    "/email/suppressions",
    describe({ tag: "Email", summary: "Take addresses off the suppression list", response: z.object({ removed: z.int() }) }),
    secretKey({ scope: "email" }),
    jsonBody(emailList),
    async (c) => {
      const { valid } = normalizeAll(c.req.valid("json").emails);
      const db = database(c.env);
      let removed = 0;
      const keys = [...valid.keys()];
      for (let i = 0; i < keys.length; i += 90) {
        const deleted = await db
          .delete(emailSuppressions)
          .where(and(eq(emailSuppressions.accountId, accountOf(c)), inArray(emailSuppressions.email, keys.slice(i, i + 90))))
          .returning({ id: emailSuppressions.id });
        removed += deleted.length;
      }
      return ok(c, { removed });
    },
  )
  .delete(
    "/email/suppressions/:suppressionId",
    describe({ tag: "Email", summary: "Remove one suppression entry", response: suppressionSchema, errors: ["NOT_FOUND"] }),
    secretKey({ scope: "email" }),
    pathParams(z.object({ suppressionId: z.coerce.number().int().min(1) })),
    async (c) => {
      const [row] = await database(c.env)
        .delete(emailSuppressions)
        .where(and(eq(emailSuppressions.id, c.req.valid("param").suppressionId), eq(emailSuppressions.accountId, accountOf(c))))
        .returning();
      if (!row) throw notFound("Suppression entry");
      return ok(c, suppressionView(row));
    },
  )
  .get(
    "/email/history",
    describe({
      tag: "Email",
      summary: `Every email answer of the account (test addresses excepted), newest first, kept ${HISTORY_RETENTION_DAYS} days`,
      response: z.object({ lookups: z.array(z.object({ id: z.int(), request_id: z.string(), email: z.string(), deliverable: z.string() })) }),
    }),
    secretKey({ scope: "email" }),
    queryParams(
      z.object({
        page,
        since: dateOrTimestamp(false).optional(),
        until: dateOrTimestamp(true).optional(),
        deliverable: z.enum(["deliverable", "risky", "undeliverable"]).optional(),
        email: z.string().max(254).optional(),
      }),
    ),
    async (c) => {
      const q = c.req.valid("query");
      const filters: (SQL | undefined)[] = [
        eq(emailHistory.accountId, accountOf(c)),
        q.since !== undefined ? gte(emailHistory.createdAt, q.since) : undefined,
        q.until !== undefined ? lt(emailHistory.createdAt, q.until) : undefined,
        q.deliverable ? eq(emailHistory.deliverable, q.deliverable) : undefined,
        q.email ? eq(emailHistory.normalizedEmail, normalizeAll([q.email]).valid.keys().next().value ?? q.email) : undefined,
      ];
      const where = and(...filters);
      const db = database(c.env);
      const [rows, [total]] = await Promise.all([
        db.select().from(emailHistory).where(where).orderBy(desc(emailHistory.id)).limit(PER_PAGE).offset((q.page - 1) * PER_PAGE),
        db.select({ n: count() }).from(emailHistory).where(where),
      ]);
      const lookups = rows.map((r) => ({
        id: r.id,
        request_id: r.requestId,
        email: r.email,
        normalized_email: r.normalizedEmail,
        deliverable: r.deliverable,
        reason: r.reason,
        credits_used: r.creditsUsed,
        cache_hit: r.cacheHit,
        suppressed: r.suppressed,
        created_at: iso(r.createdAt),
      }));
      return ok(c, { lookups }, { page: q.page, per_page: PER_PAGE, total: total?.n ?? 0, retention_days: HISTORY_RETENTION_DAYS });
    },
  );
