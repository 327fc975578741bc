import { Hono } from "hono";
import { z } from "zod";
import { startRefresh } from "../../../engines/datasets/refresh";
import { refreshDueDatasets, refreshViews } from "../../../engines/datasets/schedule";
import { refreshableDatasets, refreshableNamed } from "../../../products/refreshable";
import { ok } from "../../../http/envelope";
import { notFound } from "../../../http/errors";
import { pathParams } from "../../../http/validation";
import type { AppEnv } from "../../../types";

/**
 * The scheduled dataset refresh for the operator (docs/operations.md, "Dataset refresh"): every refreshable dataset
 * with its URL, cadence and last attempt, success, error and staleness; a refresh started now; the cron's work run now.
 */
export const adminDatasetRefreshRoutes = new Hono<AppEnv>()
  .get("/dataset-refresh", async (c) =>
    ok(c, { datasets: await refreshViews(c.env, Date.now(), refreshableDatasets()) }),
  )
  .post("/dataset-refresh/due", async (c) => ok(c, await refreshDueDatasets(c.env, Date.now(), refreshableDatasets())))
  .post("/dataset-refresh/:name", pathParams(z.object({ name: z.string().max(64) })), async (c) => {
    const dataset = refreshableNamed(c.req.valid("param").name);
    if (!dataset) throw notFound("Refreshable dataset");
    // Forced: the file is fetched and imported even when the publisher says it has not changed.
    const run = await startRefresh(c.env, dataset, Date.now(), true);
    return ok(c, { name: dataset.name, started: run !== null, run }, {}, 202);
  });
