import { Hono } from "hono";
import { removeMonitor } from "../../../engines/monitors/edit";
import { manualRunRefusal } from "../../../engines/monitors/bounds";
import { createFromRequest, editFromRequest } from "../../../engines/monitors/request";
import { monitorShape, runMonitor } from "../../../engines/monitors/run";
import type { Product } from "../../../engines/product";
import type { DashContext, DashEnv } from "../context";
import { listKeys } from "../keys";
import {
  familyMonitors,
  familyProduct,
  keysReaching,
  listHint,
  loadMonitor,
  monitorFamilies,
  monitorKeys,
  optionFields,
  parseMonitorForm,
} from "../monitors";
import { MonitorsPage, type MonitorsPageProps } from "../pages/monitors";
import { MonitorRunPage } from "../pages/monitor-run";
import { ledgerMovements } from "../usage";
import { accountMonitor, runAt } from "../../../engines/monitors/store";

type Shown = Omit<MonitorsPageProps, "session" | "families">;

const render = async (c: DashContext, shown: Shown = {}, status: 200 | 404 | 409 | 422 | 429 = 200) => {
  const { accountId } = c.var.session;
  const keys = await listKeys(c.env, accountId);
  const families = await Promise.all(
    monitorFamilies().map(async ({ family, product }) => ({
      family,
      listField: monitorShape(product).listField,
      listHint: listHint(product),
      options: optionFields(product),
      keys: keysReaching(keys, product),
      monitors: await familyMonitors(c.env, accountId, product),
    })),
  );
  return c.html(
    <MonitorsPage session={c.var.session} families={families} creating={c.req.query("new")} {...shown} />,
    status,
  );
};

const refused = (c: DashContext, family: string, on: "create" | "edit", fields: Record<string, string[]>) =>
  render(c, { errors: { family, on, fields } }, 422);

const notFound = (c: DashContext) => render(c, { notice: "No such monitor in this account." }, 404);

/** The product of the path's family and the monitor id, or null (an unknown family, or an id no monitor has). */
const target = (c: DashContext): { family: string; product: Product; id: number } | null => {
  const family = c.req.param("family") ?? "";
  const product = familyProduct(family);
  const id = Number(c.req.param("monitorId"));
  return product && Number.isSafeInteger(id) && id > 0 ? { family, product, id } : null;
};

/** What the redirect after a post says: `?created=`, `?saved=`, `?deleted=` and the monitor's id. */
const doneNotice = (c: DashContext): string | undefined => {
  for (const [key, word] of [
    ["created", "created"],
    ["saved", "saved"],
    ["deleted", "deleted"],
  ] as const) {
    const id = Number(c.req.query(key));
    if (Number.isSafeInteger(id) && id > 0) return `Monitor ${id} ${word}.`;
  }
  return undefined;
};

/**
 * Monitors: one section per family; every change goes through the engine functions the API's routes call
 * (src/engines/monitors/request.ts), so the PATCH rules and their refusals are the API's. Owners and members alike.
 * A successful post redirects (303): to the run's page, or to the monitors page with a notice.
 */
export const monitorRoutes = new Hono<DashEnv>()
  .get("/monitors", (c) => render(c, { notice: doneNotice(c) }))
  .get("/monitors/runs/:monitorId/:ranAt", async (c) => {
    const [monitorId, ranAt] = [Number(c.req.param("monitorId")), Number(c.req.param("ranAt"))];
    if (!Number.isSafeInteger(monitorId) || !Number.isSafeInteger(ranAt)) return notFound(c);
    const { accountId } = c.var.session;
    const [row, run, charges] = await Promise.all([
      accountMonitor(c.env, accountId, monitorId),
      runAt(c.env, monitorId, ranAt),
      ledgerMovements(c.env, accountId, `monitor:${monitorId}:${ranAt}`),
    ]);
    // The page exists while the account's monitor keeps the run, or while the account's ledger holds its charge.
    if (!(row && run) && !charges.length) return notFound(c);
    const monitor = row ? { row, family: row.product } : undefined;
    return c.html(
      <MonitorRunPage
        session={c.var.session}
        monitorId={monitorId}
        ranAt={ranAt}
        monitor={monitor}
        run={row ? run : undefined}
        charges={charges}
      />,
    );
  })
  .post("/monitors/:family", async (c) => {
    const family = c.req.param("family");
    const product = familyProduct(family);
    if (!product) return notFound(c);
    const form = await c.req.parseBody();
    const { accountId } = c.var.session;
    const keyId = typeof form.key_id === "string" ? form.key_id : "";
    if (!(await monitorKeys(c.env, accountId, product)).some((k) => k.id === keyId))
      return refused(c, family, "create", {
        key_id: [`Choose a live secret key of this account with the ${product.scope} scope.`],
      });
    const parsed = parseMonitorForm(product, form, "create");
    if ("errors" in parsed) return refused(c, family, "create", parsed.errors);
    const made = await createFromRequest(c.env, product, { accountId, keyId }, parsed.body);
    if ("errors" in made) return refused(c, family, "create", made.errors);
    if ("refusal" in made) return render(c, { notice: made.refusal.message }, 409);
    // A new signing secret is shown on this answer only; otherwise redirect after the post.
    if (made.secret) return render(c, { notice: `Monitor ${made.row.id} created.`, secret: made.secret });
    return c.redirect(`/dashboard/monitors?created=${made.row.id}#monitor-${family}-${made.row.id}`, 303);
  })
  .post("/monitors/:family/:monitorId", async (c) => {
    const at = target(c);
    if (!at) return notFound(c);
    const parsed = parseMonitorForm(at.product, await c.req.parseBody(), "patch");
    if ("errors" in parsed) return refused(c, at.family, "edit", parsed.errors);
    // The engine finds the monitor by account and family; the key id is only read on create.
    const owner = { accountId: c.var.session.accountId, keyId: "" };
    const edited = await editFromRequest(c.env, at.product, { owner, monitorId: at.id, body: parsed.body });
    if ("notFound" in edited) return notFound(c);
    if ("errors" in edited) return refused(c, at.family, "edit", edited.errors);
    if (edited.secret) return render(c, { notice: `Monitor ${at.id} saved.`, secret: edited.secret });
    return c.redirect(`/dashboard/monitors?saved=${at.id}#monitor-${at.family}-${at.id}`, 303);
  })
  .post("/monitors/:family/:monitorId/run", async (c) => {
    const at = target(c);
    const monitor = at && (await loadMonitor(c.env, c.var.session.accountId, at.product, at.id));
    if (!at || !monitor) return notFound(c);
    // Paid by the monitor's own key, as the API's run and the scheduled runs are; counted as the API's run is, and
    // `refresh` as the API's.
    const limited = await manualRunRefusal(c.env, monitor.accountId);
    if (limited) {
      c.header("Retry-After", String(limited.retryAfterSeconds));
      return render(c, { notice: limited.message }, 429);
    }
    const refresh = (await c.req.parseBody()).refresh === "on";
    const now = Date.now();
    await runMonitor(c.env, at.product, monitor, { now, refresh });
    // Redirect after the post: the address bar shows the run's page, which a reload does not run again.
    return c.redirect(`/dashboard/monitors/runs/${monitor.id}/${now}`, 303);
  })
  .post("/monitors/:family/:monitorId/delete", async (c) => {
    const at = target(c);
    const monitor = at && (await loadMonitor(c.env, c.var.session.accountId, at.product, at.id));
    if (!at || !monitor) return notFound(c);
    await removeMonitor(c.env, monitor);
    return c.redirect(`/dashboard/monitors?deleted=${monitor.id}`, 303);
  });
