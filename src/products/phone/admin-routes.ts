import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../db/client";
import { coverageBody } from "../../db/coverage";
import { installDataset } from "../../db/datasets";
import { ok } from "../../http/envelope";
import { notFound } from "../../http/errors";
import { BODY_BYTES } from "../../http/body";
import { jsonBody, pathParams } from "../../http/validation";
import { isTableDataset, TABLE_DATASETS, type TableDataset } from "./datasets";
import { insertRows, installedTables, removeOtherVersions } from "./store";
import type { AppEnv } from "../../types";

const datasetParam = pathParams(z.object({ dataset: z.string().max(64) }));

function datasetNamed(name: string): TableDataset {
  if (!isTableDataset(name)) throw notFound("Phone dataset");
  return name;
}

/** A build version (`2026.07.30-a3a83750`), optionally tagged (`-sample`). */
const version = z
  .string()
  .regex(
    /^\d{4}\.\d{2}\.\d{2}-[0-9a-f]{8}(-[a-z0-9]+)?$/,
    "A dataset version YYYY.MM.DD-hash8, optionally followed by -tag.",
  );

/** One row as datasets/phone/build.mjs writes it: calling code, national prefix, value. */
const row = z.tuple([z.string().regex(/^\d{1,3}$/), z.string().regex(/^\d{0,17}$/), z.string().min(1).max(2_000)]);

/** Time one DELETE may spend removing rows before it answers `done: false` (the caller repeats). */
const REMOVE_BUDGET_MS = 20_000;

/**
 * Loading the phone prefix tables (scripts/import-phone.mjs): rows of a version in batches, then `install` switches
 * answers to that version at once, then DELETE drops the rows of every other version.
 */
export const adminPhoneDatasetRoutes = new Hono<AppEnv>()
  .get("/phone-datasets", async (c) => {
    const installed = await installedTables(database(c.env));
    const list = TABLE_DATASETS.map((name) => {
      const loaded = installed.get(name);
      return {
        name,
        installed: Boolean(loaded),
        version: loaded?.version ?? null,
        records: loaded?.records ?? null,
        loaded_at: loaded ? new Date(loaded.loadedAt).toISOString() : null,
      };
    });
    return ok(c, { datasets: list });
  })
  .post(
    "/phone-datasets/:dataset/rows",
    datasetParam,
    jsonBody(z.object({ version, rows: z.array(row).min(1).max(5_000) }), BODY_BYTES.bulk),
    async (c) => {
      const dataset = datasetNamed(c.req.valid("param").dataset);
      const body = c.req.valid("json");
      await insertRows(database(c.env), dataset, body.version, body.rows);
      return ok(c, { dataset, version: body.version, rows: body.rows.length });
    },
  )
  .post(
    "/phone-datasets/:dataset/install",
    datasetParam,
    jsonBody(z.object({ version, records: z.int().min(0), coverage: coverageBody })),
    async (c) => {
      const dataset = datasetNamed(c.req.valid("param").dataset);
      const { version: installed, records, coverage } = c.req.valid("json");
      // Answers read only rows of the installed version: this switches them to the new rows in one step.
      const row = await installDataset(database(c.env), dataset, {
        version: installed,
        records,
        now: Date.now(),
        coverage,
      });
      return ok(c, { name: dataset, version: installed, records, coverage: row.coverage });
    },
  )
  .on(
    "DELETE",
    "/phone-datasets/:dataset",
    datasetParam,
    jsonBody(z.object({ keep: version.nullable() })),
    async (c) => {
      const dataset = datasetNamed(c.req.valid("param").dataset);
      const removed = await removeOtherVersions(database(c.env), dataset, c.req.valid("json").keep, REMOVE_BUDGET_MS);
      return ok(c, { dataset, ...removed });
    },
  );
