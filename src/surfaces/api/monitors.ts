import { Hono, type Context, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { secretPrincipal } from "../../auth/principal";
import { secretKey } from "../../auth/secret-key";
import { MONITOR_BOUNDS } from "../../engines/monitors/bounds";
import { removeMonitor } from "../../engines/monitors/edit";
import { createFromRequest, editFromRequest, monitorRequest } from "../../engines/monitors/request";
import { monitorShape } from "../../engines/monitors/run";
import { viewOf } from "../../engines/monitors/view";
import { entryChangesSchema, monitorSchema, runSummarySchema } from "../../engines/monitors/schemas";
import type { MonitorShape, Product } from "../../engines/product";
import { ok } from "../../http/envelope";
import { ApiError, notFound, validationFailed } from "../../http/errors";
import { pageMeta } from "../../http/meta";
import { describe } from "../../http/openapi";
import { productOperationId } from "../../http/operation-ids";
import { page } from "../../http/time";
import { jsonBody, pathParams, queryParams } from "../../http/validation";
import { listMonitors, ownMonitor, readMonitor, runMonitorNow } from "../monitor-acts";
import type { AppEnv } from "../../types";
import { actOf, answerOf } from "./rest-act";

const monitorParam = pathParams(z.object({ monitorId: z.coerce.number().int().min(1) }));

/** PATCH rule 6: another account's (or another product's) monitor is 404. */
async function load(c: Context<AppEnv>, product: Product, monitorId: number) {
  const row = await ownMonitor(actOf(c), product, monitorId);
  if (!row) throw notFound("Monitor");
  return row;
}

interface Mount {
  product: Product;
  shape: MonitorShape<unknown, unknown>;
  base: string;
  /** The monitor family (`email`, `email_domain`): the tools' `monitor_kind` and the operation ids' noun. */
  family: string;
  tag: string;
  auth: MiddlewareHandler<AppEnv>;
}

/** `{monitor, webhook_secret?}`: the secret only from the call that set a webhook URL. */
const monitorResponseSchema = ({ product, shape }: Mount) =>
  z.object({ monitor: monitorSchema(product, shape), webhook_secret: z.string().optional() });

const withSecret = (secret: string | null) => (secret ? { webhook_secret: secret } : {});

/** `GET, POST /{product}/monitors`. */
function collectionRoutes(mount: Mount) {
  const { product, base, tag, auth } = mount;
  const monitor = monitorResponseSchema(mount);
  const createBody = monitorRequest(product).create;
  return new Hono<AppEnv>()
    .get(
      base,
      describe({
        operationId: productOperationId("list", mount.family, "Monitors"),
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
      async (c) => answerOf(c, await listMonitors(actOf(c), product, c.req.valid("query").page)),
    )
    .post(
      base,
      describe({
        operationId: productOperationId("create", mount.family, "Monitor"),
        tag,
        summary: "Create a monitor; the webhook signing secret is returned once",
        description:
          `Saves a list of ${product.name} values to re-check on a schedule (\`cadence\`: \`weekly\` or ` +
          `\`monthly\`). The first run sets the baselines; later runs report the changes and post ` +
          `\`${product.name}_monitor.run\` to \`webhook_url\` when given. The answer carries \`webhook_secret\` ` +
          `only here: keep it to verify deliveries. Creating is free; each run is billed like a batch. An account ` +
          `has at most ${MONITOR_BOUNDS.monitorsPerAccount} monitors, all products together.`,
        status: 201,
        response: monitor,
        errors: ["MONITOR_LIMIT_REACHED"],
      }),
      auth,
      jsonBody(createBody),
      async (c) => {
        const { accountId, keyId } = secretPrincipal(c);
        const made = await createFromRequest(c.env, product, { accountId, keyId }, c.req.valid("json"));
        if ("errors" in made) throw validationFailed(made.errors);
        if ("refusal" in made) throw new ApiError(made.refusal.code, made.refusal.message);
        const { row, secret } = made;
        return ok(c, { monitor: await viewOf(c.env, product, row), ...withSecret(secret) }, {}, 201);
      },
    );
}

const runQuery = z.object({
  refresh: z
    .enum(["true", "false"])
    .optional()
    .describe(
      "`true`: look every entry up again, billed as fresh, instead of answering one checked in the last 7 days from " +
        "the repeat window (so a change since then is seen now).",
    ),
});

/** `GET, PATCH, DELETE /{product}/monitors/{monitorId}` and `POST .../run`. */
function itemRoutes(mount: Mount) {
  const { product, shape, base, tag, auth } = mount;
  const monitorResponse = monitorResponseSchema(mount);
  const patchBody = monitorRequest(product).patch;
  const one = `${base}/:monitorId`;
  return new Hono<AppEnv>()
    .get(
      one,
      describe({
        operationId: productOperationId("get", mount.family, "Monitor"),
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
      async (c) => answerOf(c, await readMonitor(actOf(c), product, c.req.valid("param").monitorId)),
    )
    .patch(
      one,
      describe({
        operationId: productOperationId("update", mount.family, "Monitor"),
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
        const { accountId, keyId } = secretPrincipal(c);
        const edited = await editFromRequest(c.env, product, {
          owner: { accountId, keyId },
          monitorId: c.req.valid("param").monitorId,
          body: c.req.valid("json"),
        });
        if ("notFound" in edited) throw notFound("Monitor");
        if ("errors" in edited) throw validationFailed(edited.errors);
        const { row, secret } = edited;
        return ok(c, { monitor: await viewOf(c.env, product, row), ...withSecret(secret) });
      },
    )
    .on(
      "DELETE",
      one,
      describe({
        operationId: productOperationId("delete", mount.family, "Monitor"),
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
        operationId: productOperationId("run", mount.family, "Monitor"),
        tag,
        summary: "Run a monitor now (billed like a batch); the schedule is unchanged",
        description:
          "Runs the monitor at once through the paid walk (repeats within 7 days and test values free, refusals " +
          "free; `?refresh=true` looks every entry up again, billed as fresh) and answers the run: its summary " +
          "(credits used, counts), the changes against the baselines, and the monitor. The next scheduled run is " +
          `unchanged. 402 when the balance cannot pay; 429 past ${MONITOR_BOUNDS.runsPerDay} runs asked by hand a ` +
          "day for the account (scheduled runs do not count).",
        response: z.object({
          monitor: monitorSchema(product, shape),
          summary: runSummarySchema(shape),
          changes: z.array(entryChangesSchema),
          // Products that flag entries (phone): each newly flagged entry, by label, with the flags it raised.
          ...(shape.flags ? { flags: z.record(z.string(), z.array(z.string())) } : {}),
        }),
        errors: ["NOT_FOUND", "INSUFFICIENT_CREDITS", "VALIDATION_FAILED", "RATE_LIMITED"],
      }),
      auth,
      monitorParam,
      queryParams(runQuery),
      async (c) => {
        const run = { monitorId: c.req.valid("param").monitorId, refresh: c.req.valid("query").refresh === "true" };
        return answerOf(c, await runMonitorNow(actOf(c), product, run));
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
    family: product.monitor?.family ?? product.name,
    tag: product.name.charAt(0).toUpperCase() + product.name.slice(1),
    auth: secretKey({ scope: product.scope }),
  };
  return new Hono<AppEnv>().route("/", collectionRoutes(mount)).route("/", itemRoutes(mount));
}
