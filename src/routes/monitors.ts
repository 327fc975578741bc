import { Hono, type Context, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { secretPrincipal } from "../auth/principal";
import { secretKey } from "../auth/secret-key";
import { createMonitor, patchMonitor, removeMonitor, type MonitorPatch } from "../engines/monitors/edit";
import { monitorFamily, monitorShape, runMonitor } from "../engines/monitors/run";
import { findMonitor, pageMonitors } from "../engines/monitors/store";
import { monitorViews, viewOf } from "../engines/monitors/view";
import { entryChangesSchema, monitorSchema, runSummarySchema } from "../engines/monitors/schemas";
import type { MonitorShape, Product } from "../engines/product";
import { assertWebhookUrl } from "../http/webhook-url";
import { ok } from "../http/envelope";
import { notFound, validationFailed } from "../http/errors";
import { pageMeta } from "../http/meta";
import { describe } from "../http/openapi";
import { page, PER_PAGE } from "../http/time";
import { jsonBody, pathParams, queryParams } from "../http/validation";
import type { AppEnv } from "../types";

const fields = {
  name: z.string().min(1).max(100),
  cadence: z.enum(["weekly", "monthly"]),
  webhook_url: z.url().max(2048).nullable(),
  webhook_events: z.enum(["changes", "every_run"]),
  /** Mail the account's members each run that `webhook_events` would post (docs/mail.md). */
  alert_emails: z.boolean(),
};
const createFields = z.object({
  ...fields,
  webhook_url: fields.webhook_url.optional(),
  webhook_events: fields.webhook_events.default("changes"),
  alert_emails: fields.alert_emails.default(false),
});
const patchFields = z.object(fields).partial();

/**
 * `base` plus the product's list field (`identifiers` for entity). The field's name is only known at run time, so the
 * schema is typed as `base` and the list is read back with `listOf`; validation and OpenAPI see the whole schema.
 */
function withList<S extends z.ZodObject>(base: S, listField: string, list: z.ZodType): S {
  return base.extend({ [listField]: list }) as unknown as S;
}

const listOf = (body: object, listField: string) => (body as Record<string, unknown[] | undefined>)[listField];

/** The product's own monitor options a body gave (MonitorShape.options: phone's `network`). */
const optionsOf = (body: object, shape: MonitorShape<unknown, unknown>) =>
  Object.fromEntries(
    Object.keys(shape.options ?? {}).flatMap((name) =>
      (body as Record<string, unknown>)[name] === undefined ? [] : [[name, (body as Record<string, unknown>)[name]]],
    ),
  );

/** The options as a PATCH takes them: each optional, no default. */
const partialOptions = (shape: MonitorShape<unknown, unknown>) =>
  Object.fromEntries(
    Object.entries(shape.options ?? {}).map(([name, schema]) => [
      name,
      z.optional((schema instanceof z.ZodDefault ? schema.removeDefault() : schema) as z.ZodType),
    ]),
  );

/** `base` plus the product's own options; typed as `base`, read back with `optionsOf` (as `withList`). */
const withOptions = <S extends z.ZodObject>(base: S, options: Record<string, z.ZodType>): S =>
  base.extend(options) as unknown as S;

const monitorParam = pathParams(z.object({ monitorId: z.coerce.number().int().min(1) }));

const ownerOf = (c: Context<AppEnv>, product: Product) => {
  const { accountId, keyId } = secretPrincipal(c);
  return { accountId, keyId, product: monitorFamily(product) };
};

/** PATCH rule 6: another account's (or another product's) monitor is 404. */
async function load(c: Context<AppEnv>, product: Product, monitorId: number) {
  const row = await findMonitor(c.env, ownerOf(c, product), monitorId);
  if (!row) throw notFound("Monitor");
  return row;
}

interface Mount {
  product: Product;
  shape: MonitorShape<unknown, unknown>;
  base: string;
  tag: string;
  auth: MiddlewareHandler<AppEnv>;
  list: z.ZodType<unknown[]>;
}

/** `{monitor, webhook_secret?}`: the secret only from the call that set a webhook URL. */
const monitorResponseSchema = ({ product, shape }: Mount) =>
  z.object({ monitor: monitorSchema(product, shape), webhook_secret: z.string().optional() });

const withSecret = (secret: string | null) => (secret ? { webhook_secret: secret } : {});

/** `GET, POST /{product}/monitors`. */
function collectionRoutes(mount: Mount) {
  const { product, shape, base, tag, auth, list } = mount;
  const monitor = monitorResponseSchema(mount);
  const createBody = withList(withOptions(createFields, shape.options ?? {}), shape.listField, list);
  return new Hono<AppEnv>()
    .get(
      base,
      describe({
        tag,
        summary: `The account's ${product.name} monitors, newest first, 100 a page`,
        description:
          `Every ${product.name} monitor of the account with its schedule, webhook status and last run. ` +
          `Monitors re-check a saved list weekly or monthly through the same paid walk as a batch and report what ` +
          `changed. Free.`,
        response: z.object({ monitors: z.array(monitor.shape.monitor) }),
        meta: pageMeta,
      }),
      auth,
      queryParams(z.object({ page })),
      async (c) => {
        const { page } = c.req.valid("query");
        const { rows, total } = await pageMonitors(c.env, ownerOf(c, product), page, PER_PAGE);
        return ok(c, { monitors: await monitorViews(c.env, product, rows) }, { page, per_page: PER_PAGE, total });
      },
    )
    .post(
      base,
      describe({
        tag,
        summary: "Create a monitor; the webhook signing secret is returned once",
        description:
          `Saves a list of ${product.name} values to re-check on a schedule (\`cadence\`: \`weekly\` or ` +
          `\`monthly\`). The first run sets the baselines; later runs report the changes and post ` +
          `\`${product.name}_monitor.run\` to \`webhook_url\` when given. The answer carries \`webhook_secret\` ` +
          `only here: keep it to verify deliveries. Creating is free; each run is billed like a batch.`,
        status: 201,
        response: monitor,
      }),
      auth,
      jsonBody(createBody),
      async (c) => {
        const body = c.req.valid("json");
        if (body.webhook_url) assertWebhookUrl(c.env, "webhook_url", body.webhook_url);
        const fields = {
          name: body.name,
          entries: listOf(body, shape.listField)!,
          cadence: body.cadence,
          webhookUrl: body.webhook_url ?? null,
          webhookEvents: body.webhook_events,
          alertEmails: body.alert_emails,
          options: optionsOf(body, shape),
        };
        const { row, secret } = await createMonitor(c.env, product, ownerOf(c, product), fields);
        return ok(c, { monitor: await viewOf(c.env, product, row), ...withSecret(secret) }, {}, 201);
      },
    );
}

/** `GET, PATCH, DELETE /{product}/monitors/{monitorId}` and `POST .../run`. */
function itemRoutes(mount: Mount) {
  const { product, shape, base, tag, auth, list } = mount;
  const monitorResponse = monitorResponseSchema(mount);
  const patchBody = withList(withOptions(patchFields, partialOptions(shape)), shape.listField, list.optional());
  const one = `${base}/:monitorId`;
  return new Hono<AppEnv>()
    .get(
      one,
      describe({
        tag,
        summary: "One monitor",
        description:
          "The monitor with its schedule, next run, last run summary and webhook status. Another account's monitor " +
          "is 404. Free.",
        response: monitorResponse,
        errors: ["NOT_FOUND"],
      }),
      auth,
      monitorParam,
      async (c) =>
        ok(c, { monitor: await viewOf(c.env, product, await load(c, product, c.req.valid("param").monitorId)) }),
    )
    .patch(
      one,
      describe({
        tag,
        summary: "Change a monitor (PATCH rules 1-6); a new webhook URL returns a new secret once",
        description:
          "Changes the fields given (the list, `name`, `cadence`, `webhook_url`, `webhook_events`, `alert_emails`); " +
          "absent fields stay. Setting a new webhook URL mints a new secret, returned once in `webhook_secret`; " +
          "clearing it stops deliveries. Free.",
        response: monitorResponse,
        errors: ["NOT_FOUND"],
      }),
      auth,
      monitorParam,
      jsonBody(patchBody),
      async (c) => {
        const body = c.req.valid("json");
        if (Object.keys(body).length === 0) {
          throw validationFailed({
            body: [
              `Name at least one of name, ${shape.listField}, cadence, webhook_url, webhook_events, ` +
                `alert_emails${Object.keys(shape.options ?? {})
                  .map((name) => `, ${name}`)
                  .join("")}.`,
            ],
          });
        }
        const monitor = await load(c, product, c.req.valid("param").monitorId);
        if (body.webhook_url) assertWebhookUrl(c.env, "webhook_url", body.webhook_url);
        const patch: MonitorPatch = {
          name: body.name,
          entries: listOf(body, shape.listField),
          cadence: body.cadence,
          webhookUrl: body.webhook_url,
          webhookEvents: body.webhook_events,
          alertEmails: body.alert_emails,
          options: optionsOf(body, shape),
        };
        const { row, secret } = await patchMonitor(c.env, product, monitor, patch);
        return ok(c, { monitor: await viewOf(c.env, product, row), ...withSecret(secret) });
      },
    )
    .on(
      "DELETE",
      one,
      describe({
        tag,
        summary: "Delete a monitor and its baselines",
        description: "Deletes the monitor, its baselines and its schedule; answers the monitor as it was. Free.",
        response: monitorResponse,
        errors: ["NOT_FOUND"],
      }),
      auth,
      monitorParam,
      async (c) => {
        const monitor = await load(c, product, c.req.valid("param").monitorId);
        const view = await viewOf(c.env, product, monitor);
        await removeMonitor(c.env, monitor);
        return ok(c, { monitor: view });
      },
    )
    .post(
      `${one}/run`,
      describe({
        tag,
        summary: "Run a monitor now (billed like a batch); the schedule is unchanged",
        description:
          "Runs the monitor at once through the paid walk (repeats within 7 days and test values free, refusals " +
          "free) and answers the run: its summary (credits used, counts), the changes against the baselines, and " +
          "the monitor. The next scheduled run is unchanged. 402 when the balance cannot pay.",
        response: z.object({
          monitor: monitorSchema(product, shape),
          summary: runSummarySchema(shape),
          changes: z.array(entryChangesSchema),
          // Products that flag entries (phone): each newly flagged entry, by label, with the flags it raised.
          ...(shape.flags ? { flags: z.record(z.string(), z.array(z.string())) } : {}),
        }),
        errors: ["NOT_FOUND", "INSUFFICIENT_CREDITS"],
      }),
      auth,
      monitorParam,
      async (c) => {
        const monitor = await load(c, product, c.req.valid("param").monitorId);
        const { monitor: current, summary, changes, flags } = await runMonitor(c.env, product, monitor);
        c.set("creditsUsed", summary.credits_used);
        return ok(c, { monitor: await viewOf(c.env, product, current), summary, changes, ...(flags ? { flags } : {}) });
      },
    );
}

/**
 * `GET, POST /{product}/monitors`, `GET, PATCH, DELETE /{product}/monitors/{monitorId}` and `POST .../run` for a
 * product with a monitor shape: saved lists re-checked weekly or monthly (docs/entity-monitors.md). The list field is
 * the product's (`identifiers` for entity), each entry validated by the product's own input schema.
 */
export function monitorRoutes(product: Product): Hono<AppEnv> {
  const shape = monitorShape(product);
  const mount: Mount = {
    product,
    shape,
    base: `/${product.name}/${shape.path ?? "monitors"}`,
    tag: product.name.charAt(0).toUpperCase() + product.name.slice(1),
    auth: secretKey({ scope: product.scope }),
    list: z.array(product.input).min(1).max(shape.maxEntries),
  };
  return new Hono<AppEnv>().route("/", collectionRoutes(mount)).route("/", itemRoutes(mount));
}
