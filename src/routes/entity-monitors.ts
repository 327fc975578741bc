import { and, count, desc, eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { randomToken } from "../auth/keys";
import { secretKey } from "../auth/secret-key";
import { database } from "../db/client";
import { entityMonitors } from "../db/schema";
import { ok } from "../http/envelope";
import { notFound, validationFailed } from "../http/errors";
import { describe } from "../http/openapi";
import { jsonBody, pathParams, queryParams } from "../http/validation";
import { nextRunAfter, rescheduled } from "../products/entity/monitor";
import { dropRemovedBaselines, runMonitor, type MonitorRow } from "../products/entity/monitor-run";
import type { AppEnv } from "../types";
import { assertWebhookUrl } from "./webhooks";

const item = z.union([
  z.string().max(64),
  z
    .object({ identifier: z.string().max(64), type: z.enum(["lei", "company_number"]).default("lei"), country: z.string().max(2).nullish() })
    .refine((i) => i.type !== "company_number" || Boolean(i.country), { path: ["country"], message: "Required for company numbers." }),
]);
const fields = {
  name: z.string().min(1).max(100),
  identifiers: z.array(item).min(1).max(500),
  cadence: z.enum(["weekly", "monthly"]),
  webhook_url: z.url().max(2048).nullable(),
  webhook_events: z.enum(["changes", "every_run"]),
};
const createBody = z.object({ ...fields, webhook_url: fields.webhook_url.optional(), webhook_events: fields.webhook_events.default("changes") });
const patchBody = z.object(fields).partial();
const monitorParam = pathParams(z.object({ monitorId: z.coerce.number().int().min(1) }));
const PER_PAGE = 100;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The monitor object; the signing secret is never part of it. */
export const monitorView = (m: MonitorRow) => ({
  id: m.id,
  name: m.name,
  identifiers: m.identifiers,
  cadence: m.cadence,
  webhook_url: m.webhookUrl,
  webhook_events: m.webhookEvents,
  webhook_status: m.webhookStatus,
  webhook_detail: m.webhookDetail,
  last_run_at: iso(m.lastRunAt),
  next_run_at: iso(m.nextRunAt),
  last_summary: m.lastSummary,
  created_at: iso(m.createdAt),
});

const principalOf = (c: Context<AppEnv>) => {
  const principal = c.var.principal;
  if (principal?.kind !== "secret") throw new Error("monitor routes need a secret-key principal");
  return principal;
};

async function load(c: Context<AppEnv>, monitorId: number) {
  const row = await database(c.env)
    .select()
    .from(entityMonitors)
    .where(and(eq(entityMonitors.id, monitorId), eq(entityMonitors.accountId, principalOf(c).accountId)))
    .get();
  if (!row) throw notFound("Monitor");
  return row;
}

const monitorResponse = z.object({ monitor: z.object({ id: z.int(), name: z.string() }), webhook_secret: z.string().optional() });

export const entityMonitorRoutes = new Hono<AppEnv>()
  .get(
    "/entity/monitors",
    describe({ tag: "Entity", summary: "The account's entity monitors, newest first, 100 a page", response: z.object({ monitors: z.array(monitorResponse.shape.monitor) }) }),
    secretKey({ scope: "entity" }),
    queryParams(z.object({ page: z.coerce.number().int().min(1).default(1) })),
    async (c) => {
      const { page } = c.req.valid("query");
      const db = database(c.env);
      const where = eq(entityMonitors.accountId, principalOf(c).accountId);
      const [rows, [total]] = await Promise.all([
        db.select().from(entityMonitors).where(where).orderBy(desc(entityMonitors.id)).limit(PER_PAGE).offset((page - 1) * PER_PAGE),
        db.select({ n: count() }).from(entityMonitors).where(where),
      ]);
      return ok(c, { monitors: rows.map(monitorView) }, { page, per_page: PER_PAGE, total: total?.n ?? 0 });
    },
  )
  .post(
    "/entity/monitors",
    describe({ tag: "Entity", summary: "Create a monitor; the webhook signing secret is returned once", status: 201, response: monitorResponse }),
    secretKey({ scope: "entity" }),
    jsonBody(createBody),
    async (c) => {
      const body = c.req.valid("json");
      if (body.webhook_url) assertWebhookUrl(c.env, "webhook_url", body.webhook_url);
      const principal = principalOf(c);
      const now = Date.now();
      const secret = body.webhook_url ? `whsec_${randomToken(32)}` : null;
      const [row] = await database(c.env)
        .insert(entityMonitors)
        .values({
          accountId: principal.accountId,
          keyId: principal.keyId,
          name: body.name,
          identifiers: body.identifiers,
          cadence: body.cadence,
          webhookUrl: body.webhook_url ?? null,
          webhookSecret: secret,
          webhookEvents: body.webhook_events,
          nextRunAt: nextRunAfter(now, body.cadence),
          createdAt: now,
        })
        .returning();
      return ok(c, { monitor: monitorView(row!), ...(secret ? { webhook_secret: secret } : {}) }, {}, 201);
    },
  )
  .get("/entity/monitors/:monitorId", describe({ tag: "Entity", summary: "One monitor", response: monitorResponse, errors: ["NOT_FOUND"] }), secretKey({ scope: "entity" }), monitorParam, async (c) =>
    ok(c, { monitor: monitorView(await load(c, c.req.valid("param").monitorId)) }),
  )
  .patch(
    "/entity/monitors/:monitorId",
    describe({ tag: "Entity", summary: "Change a monitor (PATCH rules 1-6); a new webhook URL returns a new secret once", response: monitorResponse, errors: ["NOT_FOUND"] }),
    secretKey({ scope: "entity" }),
    monitorParam,
    jsonBody(patchBody),
    async (c) => {
      const body = c.req.valid("json");
      if (Object.keys(body).length === 0) throw validationFailed({ body: ["Name at least one of name, identifiers, cadence, webhook_url, webhook_events."] });
      const monitor = await load(c, c.req.valid("param").monitorId);
      if (body.webhook_url) assertWebhookUrl(c.env, "webhook_url", body.webhook_url);
      const changes: Partial<typeof entityMonitors.$inferInsert> = {};
      if (body.name !== undefined) changes.name = body.name;
      if (body.webhook_events !== undefined) changes.webhookEvents = body.webhook_events;
      if (body.cadence !== undefined && body.cadence !== monitor.cadence) {
        changes.cadence = body.cadence;
        changes.nextRunAt = rescheduled(monitor, body.cadence);
      }
      let secret: string | null = null;
      if (body.webhook_url === null) Object.assign(changes, { webhookUrl: null, webhookSecret: null, webhookStatus: null, webhookDetail: null });
      else if (body.webhook_url !== undefined && body.webhook_url !== monitor.webhookUrl) {
        secret = `whsec_${randomToken(32)}`;
        Object.assign(changes, { webhookUrl: body.webhook_url, webhookSecret: secret, webhookStatus: null, webhookDetail: null });
      }
      if (body.identifiers !== undefined) {
        changes.identifiers = body.identifiers;
        await dropRemovedBaselines(c.env, monitor.id, body.identifiers);
      }
      // Fields given with their current values change nothing.
      const [row] = Object.keys(changes).length
        ? await database(c.env).update(entityMonitors).set(changes).where(eq(entityMonitors.id, monitor.id)).returning()
        : [monitor];
      return ok(c, { monitor: monitorView(row!), ...(secret ? { webhook_secret: secret } : {}) });
    },
  )
  .delete("/entity/monitors/:monitorId", describe({ tag: "Entity", summary: "Delete a monitor and its baselines", response: monitorResponse, errors: ["NOT_FOUND"] }), secretKey({ scope: "entity" }), monitorParam, async (c) => {
    const monitor = await load(c, c.req.valid("param").monitorId);
    await dropRemovedBaselines(c.env, monitor.id, []);
    await database(c.env).delete(entityMonitors).where(eq(entityMonitors.id, monitor.id));
    return ok(c, { monitor: monitorView(monitor) });
  })
  .post(
    "/entity/monitors/:monitorId/run",
    describe({ tag: "Entity", summary: "Run a monitor now (billed like a batch); the schedule is unchanged", errors: ["NOT_FOUND", "INSUFFICIENT_CREDITS"] }),
    secretKey({ scope: "entity" }),
    monitorParam,
    async (c) => {
      const monitor = await load(c, c.req.valid("param").monitorId);
      const { summary, changes } = await runMonitor(c.env, monitor);
      c.set("creditsUsed", summary.credits_used);
      return ok(c, { monitor: monitorView(await load(c, monitor.id)), summary, changes });
    },
  );
