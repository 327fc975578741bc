import { z } from "zod";
import type { MonitorShape, MonitorProduct } from "../product";
import { webhookUrlProblem } from "../webhooks/url-rule";
import { createMonitor, patchMonitor, type Edited, type MonitorPatch } from "./edit";
import { monitorFamily, monitorShape } from "./run";
import { accountMonitorCount, MONITOR_BOUNDS, MONITOR_LIMIT } from "./bounds";
import { deleteMonitor, findMonitor } from "./store";

/**
 * A monitor as a request asks for it, and the rules a request must pass, shared by every surface that edits monitors
 * (the API's routes and the dashboard): the body schemas, the empty-PATCH rule, the webhook URL rule and "another
 * account's monitor is absent". Refusals are values; each surface answers them its own way with the same messages.
 */

/** Refused fields, by dotted path (`emails.3`), the body itself as `body`; the API's `error.errors`. */
export type FieldErrors = Record<string, string[]>;

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

/** The create and PATCH body schemas of a product's monitors, each entry validated by the product's input schema. */
export function monitorRequest(product: MonitorProduct) {
  const shape = monitorShape(product);
  const list = z.array(product.input).min(1).max(shape.maxEntries);
  return {
    shape,
    list,
    create: withList(withOptions(createFields, shape.options ?? {}), shape.listField, list),
    patch: withList(withOptions(patchFields, partialOptions(shape)), shape.listField, list.optional()),
  };
}

export type CreateBody = z.infer<typeof createFields>;
export type PatchBody = z.infer<typeof patchFields>;

/** Whose monitor: the account, and the key that creates (and pays for) it. */
export interface RequestOwner {
  accountId: string;
  keyId: string;
}

const ownerOf = (product: MonitorProduct, owner: RequestOwner) => ({ ...owner, product: monitorFamily(product) });

const urlErrors = (env: Env, url: string | null | undefined): FieldErrors | null => {
  const problem = url ? webhookUrlProblem(env, url) : null;
  return problem ? { webhook_url: [problem] } : null;
};

/**
 * A validated create body -> the new monitor (its webhook secret once), the refused fields, or MONITOR_LIMIT_REACHED
 * when the account holds its maximum of monitors. The count is read before and, for monitors created at the same
 * moment, again after the insert: a monitor whose rank among the account's is past the maximum is deleted and refused.
 */
export async function createFromRequest(
  env: Env,
  product: MonitorProduct,
  owner: RequestOwner,
  body: CreateBody,
): Promise<Edited | { errors: FieldErrors } | { refusal: typeof MONITOR_LIMIT }> {
  const shape = monitorShape(product);
  const refused = urlErrors(env, body.webhook_url);
  if (refused) return { errors: refused };
  const { monitorsPerAccount } = MONITOR_BOUNDS;
  if ((await accountMonitorCount(env, owner.accountId)) >= monitorsPerAccount) return { refusal: MONITOR_LIMIT };
  const made = await createMonitor(env, product, ownerOf(product, owner), {
    name: body.name,
    entries: listOf(body, shape.listField)!,
    cadence: body.cadence,
    webhookUrl: body.webhook_url ?? null,
    webhookEvents: body.webhook_events,
    alertEmails: body.alert_emails,
    options: optionsOf(body, shape),
  });
  if ((await accountMonitorCount(env, owner.accountId, made.row.id)) <= monitorsPerAccount) return made;
  await deleteMonitor(env, made.row.id);
  return { refusal: MONITOR_LIMIT };
}

/**
 * PATCH rules 1 and 6 before rules 2-5 (edit.ts): a body naming no field is refused first, then another account's (or
 * product's) monitor is absent, then the webhook URL rule.
 */
export async function editFromRequest(
  env: Env,
  product: MonitorProduct,
  edit: { owner: RequestOwner; monitorId: number; body: PatchBody },
): Promise<Edited | { errors: FieldErrors } | { notFound: true }> {
  const { owner, monitorId, body } = edit;
  const shape = monitorShape(product);
  if (Object.keys(body).length === 0) {
    const options = Object.keys(shape.options ?? {}).map((name) => `, ${name}`);
    return {
      errors: {
        body: [
          `Name at least one of name, ${shape.listField}, cadence, webhook_url, webhook_events, ` +
            `alert_emails${options.join("")}.`,
        ],
      },
    };
  }
  const monitor = await findMonitor(env, ownerOf(product, owner), monitorId);
  if (!monitor) return { notFound: true };
  const refused = urlErrors(env, body.webhook_url);
  if (refused) return { errors: refused };
  const patch: MonitorPatch = {
    name: body.name,
    entries: listOf(body, shape.listField),
    cadence: body.cadence,
    webhookUrl: body.webhook_url,
    webhookEvents: body.webhook_events,
    alertEmails: body.alert_emails,
    options: optionsOf(body, shape),
  };
  return patchMonitor(env, product, monitor, patch);
}
