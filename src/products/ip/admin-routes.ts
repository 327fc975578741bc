import { Hono } from "hono";
import { z } from "zod";
import { coverageBody, normalizeCoverage, readCoverage } from "../../db/coverage";
import { ok } from "../../http/envelope";
import { notFound, validationFailed } from "../../http/errors";
import { BODY_BYTES } from "../../http/body";
import { jsonBody, pathParams } from "../../http/validation";
import { isRangeKey } from "../../platform/ip-address";
import { IP_DATASETS, isIpDataset, isSignalDataset, type IpDatasetName, type SignalDatasetName } from "./datasets";
import { beginImport, completeImport, datasetStates, insertRows, sweep, uninstall } from "./dataset-store";
import type { AppEnv } from "../../types";

const key = z.string().refine(isRangeKey, "A range key: 32 lower-case hex digits.");

const label = z.string().max(200).nullable();
const signalRows = z.array(z.tuple([key, key, label]));
const place = z.string().max(200).nullable();

/**
 * Rows each dataset takes (scripts/import-ip.mjs posts them): `[start, end, country]`, `[start, end, asn, name]`,
 * `[start, end, city, region, postal_code, latitude, longitude, accuracy_radius_km, country]`, keys (Tor), `[start,
 * end, label]`.
 */
const ROWS: Record<Exclude<IpDatasetName, SignalDatasetName>, z.ZodType> = {
  "ip-country": z.array(z.tuple([key, key, z.string().regex(/^[A-Z]{2}$/)])),
  "ip-asn": z.array(z.tuple([key, key, z.int().min(0).max(4_294_967_295), z.string().max(500).nullable()])),
  "ip-city": z.array(
    z.tuple([
      key,
      key,
      place,
      place,
      z.string().max(32).nullable(),
      z.number().min(-90).max(90).nullable(),
      z.number().min(-180).max(180).nullable(),
      z.int().min(0).max(20_000).nullable(),
      z
        .string()
        .regex(/^[A-Z]{2}$/)
        .nullable(),
    ]),
  ),
  "ip-tor-exits": z.array(key),
};
const rowsOf = (name: IpDatasetName) => (isSignalDataset(name) ? signalRows : ROWS[name]);

const datasetParam = pathParams(z.object({ dataset: z.string().max(32) }));
const importParam = pathParams(z.object({ dataset: z.string().max(32), generation: z.coerce.number().int().min(1) }));
const versionSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(-[a-z0-9]+)?$/, "A date YYYY-MM-DD, optionally followed by -tag.");

/** Time one sweep call may spend deleting rows before it answers `done: false` (the caller repeats). */
const SWEEP_BUDGET_MS = 20_000;

function datasetNamed(name: string): IpDatasetName {
  if (!isIpDataset(name)) throw notFound("IP dataset");
  return name;
}

const notImporting = (generation: number) =>
  validationFailed({
    generation: [`Generation ${generation} is not being imported (completed, replaced or never begun).`],
  });

/**
 * Loading IP datasets (docs/operations.md, "IP datasets"): begin an import, post rows into its generation, complete it
 * (answers switch over at once), then sweep the generations no longer read.
 */
export const adminIpDatasetRoutes = new Hono<AppEnv>()
  .get("/ip-datasets", async (c) => {
    const states = new Map((await datasetStates(c.env.DB)).map((s) => [s.name, s]));
    const datasets = IP_DATASETS.map((name) => {
      const s = states.get(name);
      const coverage = s?.active != null ? readCoverage(s.coverage) : null;
      return {
        name,
        installed: s?.active != null,
        generation: s?.active ?? null,
        importing: s?.staging ?? null,
        version: s?.version ?? null,
        records: s?.records ?? null,
        loaded_at: s?.loaded_at ? new Date(s.loaded_at).toISOString() : null,
        coverage,
      };
    });
    return ok(c, { datasets });
  })
  .post("/ip-datasets/:dataset/imports", datasetParam, async (c) => {
    const name = datasetNamed(c.req.valid("param").dataset);
    return ok(c, { dataset: name, generation: await beginImport(c.env.DB, name) }, {}, 201);
  })
  .post(
    "/ip-datasets/:dataset/imports/:generation/rows",
    importParam,
    jsonBody(z.object({ rows: z.array(z.unknown()).min(1).max(5_000) }), BODY_BYTES.bulk),
    async (c) => {
      const { dataset, generation } = c.req.valid("param");
      const name = datasetNamed(dataset);
      const rows = rowsOf(name).safeParse(c.req.valid("json").rows);
      if (!rows.success)
        throw validationFailed(
          Object.fromEntries(rows.error.issues.slice(0, 20).map((i) => [["rows", ...i.path].join("."), [i.message]])),
        );
      const ranges = rows.data as unknown[];
      if (name !== "ip-tor-exits" && (ranges as [string, string][]).some(([start, end]) => start > end))
        throw validationFailed({ rows: ["A row ends before it starts."] });
      if (!(await insertRows(c.env.DB, name, generation, ranges as never))) throw notImporting(generation);
      return ok(c, { dataset: name, generation, rows: ranges.length });
    },
  )
  .post(
    "/ip-datasets/:dataset/imports/:generation/complete",
    importParam,
    jsonBody(z.object({ version: versionSchema, records: z.int().min(0), coverage: coverageBody })),
    async (c) => {
      const { dataset, generation } = c.req.valid("param");
      const name = datasetNamed(dataset);
      const { version, records, coverage } = c.req.valid("json");
      if (!(await completeImport(c.env.DB, name, { generation, version, records, now: Date.now(), coverage })))
        throw notImporting(generation);
      return ok(c, { dataset: name, generation, version, records, coverage: normalizeCoverage(coverage) });
    },
  )
  .post("/ip-datasets/:dataset/sweep", datasetParam, async (c) => {
    const name = datasetNamed(c.req.valid("param").dataset);
    return ok(c, { dataset: name, ...(await sweep(c.env.DB, name, SWEEP_BUDGET_MS)) });
  })
  .on("DELETE", "/ip-datasets/:dataset", datasetParam, async (c) => {
    const name = datasetNamed(c.req.valid("param").dataset);
    await uninstall(c.env.DB, name);
    return ok(c, { dataset: name, installed: false });
  });
