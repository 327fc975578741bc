import type { z } from "zod";
import { type ApiKey, isLiveKey } from "../../db/api-keys";
import { monitorFamily, monitorShape } from "../../engines/monitors/run";
import { monitorRequest, type FieldErrors } from "../../engines/monitors/request";
import {
  findMonitor,
  pageMonitors,
  recentRuns,
  type MonitorRow,
  type MonitorRunRow,
} from "../../engines/monitors/store";
import { monitorViews, type MonitorView } from "../../engines/monitors/view";
import type { Product } from "../../engines/product";
import { fieldErrors } from "../../http/validation";
import { monitoredProduct, registeredProducts } from "../../products/registry";
import { listKeys } from "./keys";

/**
 * Monitors as the dashboard edits them: form fields become the API's request body, checked by the same schemas and
 * handed to the same engine functions (src/engines/monitors/request.ts), so a rule the API refuses is refused here
 * with the same message. A monitor is created with a key of the account the member picks: it pays for the runs, as a
 * monitor created through the API is paid by the key that created it.
 */

/** Every kind of monitor, by family (its rows' `product`): each product's own and its companions' (email domains). */
export const monitorFamilies = (): { family: string; product: Product }[] =>
  registeredProducts()
    .flatMap((p) => [p, ...(p.companions ?? [])])
    .filter((p) => p.monitor)
    .map((product) => ({ family: monitorFamily(product), product }));

export const familyProduct = (family: string): Product | undefined => monitoredProduct(family);

/** Of the account's keys, the live secret keys that reach the product (its scope): a monitor's possible keys. */
export const keysReaching = (keys: ApiKey[], product: Product): ApiKey[] =>
  keys.filter((k) => k.kind === "secret" && isLiveKey(k) && k.scopes.includes(product.scope));

export const monitorKeys = async (env: Env, accountId: string, product: Product): Promise<ApiKey[]> =>
  keysReaching(await listKeys(env, accountId), product);

/**
 * How a family's list box is filled in, with one of the product's own documented samples: one value per line, or a
 * JSON array where a value has parts (an address, an identifier with its type).
 */
export function listHint(product: Product): string {
  const sample = monitorShape(product).example ?? product.samples?.[0];
  if (sample === undefined) return "one per line, or a JSON array of objects for values with parts";
  return typeof sample === "object"
    ? `a JSON array of objects, e.g. [${JSON.stringify(sample)}]`
    : `one per line, e.g. ${String(sample)}`;
}

/** The family's own options; a yes/no one (it takes `true` and refuses `1`) is shown as a toggle. */
export const optionFields = (product: Product) =>
  Object.entries(monitorShape(product).options ?? {}).map(([name, schema]) => ({
    name,
    toggle: schema.safeParse(true).success && !schema.safeParse(1).success,
  }));

/** Runs shown per monitor on the page. */
const SHOWN_RUNS = 5;

/** The account's monitors of one family, newest first (the API's first 100) as the API shows them, with last runs. */
export async function familyMonitors(
  env: Env,
  accountId: string,
  product: Product,
): Promise<{ monitor: MonitorView; runs: MonitorRunRow[] }[]> {
  const { rows } = await pageMonitors(env, { accountId, product: monitorFamily(product) }, 1, 100);
  const [views, runs] = await Promise.all([
    monitorViews(env, product, rows),
    Promise.all(rows.map((row) => recentRuns(env, row.id, SHOWN_RUNS))),
  ]);
  return views.map((monitor, i) => ({ monitor, runs: runs[i]! }));
}

export const loadMonitor = (
  env: Env,
  accountId: string,
  product: Product,
  id: number,
): Promise<MonitorRow | undefined> =>
  Number.isSafeInteger(id) && id > 0
    ? findMonitor(env, { accountId, product: monitorFamily(product) }, id)
    : Promise.resolve(undefined);

type Form = Record<string, string | File | (string | File)[]>;
const text = (form: Form, name: string) => {
  const value = form[name];
  return typeof value === "string" ? value.trim() : "";
};

/** A list field's text: a JSON array (values with parts: address, entity, phone objects) or one value per line. */
function entriesOf(raw: string, field: string): unknown[] | FieldErrors {
  if (!raw.startsWith("[")) return raw.split(/\r?\n/).flatMap((line) => (line.trim() ? [line.trim()] : []));
  try {
    const parsed: unknown = JSON.parse(raw);
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // falls through to the refusal below
  }
  return { [field]: ["Give one value per line, or a JSON array."] };
}

/** An option's text as the API body would carry it: `true`/`false` as booleans, digits as a number. */
const optionValue = (raw: string): unknown =>
  raw === "true" ? true : raw === "false" ? false : /^-?\d+$/.test(raw) ? Number(raw) : raw;

/**
 * The request body a form stands for. Creating: every field. Editing: only the fields filled in (PATCH: absent fields
 * stay), `webhook_remove` clears the webhook (`webhook_url: null`).
 */
function bodyOf(
  product: Product,
  form: Form,
  editing: boolean,
): { body: Record<string, unknown> } | { errors: FieldErrors } {
  const { shape } = monitorRequest(product);
  const body: Record<string, unknown> = {};
  const put = (name: string, value: unknown) => {
    if (!editing || value !== "") body[name] = value;
  };
  put("name", text(form, "name"));
  const rawEntries = text(form, "entries");
  if (!editing || rawEntries) {
    const entries = entriesOf(rawEntries, shape.listField);
    if (!Array.isArray(entries)) return { errors: entries };
    body[shape.listField] = entries;
  }
  put("cadence", text(form, "cadence"));
  if (text(form, "webhook_remove") === "on") body.webhook_url = null;
  else if (text(form, "webhook_url")) body.webhook_url = text(form, "webhook_url");
  if (text(form, "webhook_events")) body.webhook_events = text(form, "webhook_events");
  const alerts = text(form, "alert_emails");
  if (alerts) body.alert_emails = alerts === "on";
  for (const name of Object.keys(shape.options ?? {})) if (text(form, name)) body[name] = optionValue(text(form, name));
  return { body };
}

/** The form checked by the API's own schema: the body the engine takes, or the API's field errors. */
export function parseMonitorForm<K extends "create" | "patch">(
  product: Product,
  form: Form,
  kind: K,
): { body: z.infer<ReturnType<typeof monitorRequest>[K]> } | { errors: FieldErrors } {
  const given = bodyOf(product, form, kind === "patch");
  if ("errors" in given) return given;
  const parsed = monitorRequest(product)[kind].safeParse(given.body);
  return parsed.success
    ? { body: parsed.data as z.infer<ReturnType<typeof monitorRequest>[K]> }
    : { errors: fieldErrors(parsed.error) };
}

/** How the edit form shows a monitor's list: one value per line, or JSON when an entry has parts. */
export const entriesText = (entries: unknown[]): string =>
  entries.every((e) => typeof e === "string" || typeof e === "number")
    ? entries.join("\n")
    : JSON.stringify(entries, null, 2);
