import { Hono } from "hono";
import { z } from "zod";
import { secretKey } from "../auth/secret-key";
import { database } from "../db/client";
import { loadedDatasets } from "../db/datasets";
import { ok } from "../http/envelope";
import { describe } from "../http/openapi";
import { BUNDLED_SNAPSHOTS } from "../products/email/datasets";
import { datasetStates } from "../products/ip/dataset-store";
import { readCoverage } from "../products/ip/datasets";
import { BUNDLED_PHONE_DATASETS } from "../products/phone/datasets";
import { RDAP_BOOTSTRAP_RECORDS, RDAP_BOOTSTRAP_VERSION } from "../platform/rdap";
import type { AppEnv } from "../types";

/** Bundled snapshots load with the Worker: their load time is this instance's first request (the clock is frozen at 0 at startup). */
let loadedAt: string | undefined;

const bundledDatasets = () => [
  ...BUNDLED_SNAPSHOTS,
  ...BUNDLED_PHONE_DATASETS,
  { name: "rdap-bootstrap", version: RDAP_BOOTSTRAP_VERSION, records: RDAP_BOOTSTRAP_RECORDS },
];

const coverageSchema = z
  .object({ kind: z.enum(["full", "partial", "sample"]), countries: z.array(z.string()).optional(), note: z.string().optional() })
  .describe("What the dataset covers: `full` (the publisher's whole file), `partial` (a file known to leave values out), `sample` (a few rows shipped with the code). Only a `full` dataset turns a value it lacks into a negative (`tor: false`).");

const datasetSchema = z.object({ name: z.string(), version: z.string(), records: z.int(), loaded_at: z.iso.datetime(), coverage: coverageSchema.optional() });

export const statusRoutes = new Hono<AppEnv>().get(
  "/status/data",
  describe({
    tag: "Status",
    summary: "Every dataset behind the answers, with the version that `sources` reports",
    description: "Any valid secret key may call it, whatever its scopes.",
    response: z.object({ datasets: z.array(datasetSchema) }),
  }),
  secretKey(),
  async (c) => {
    const [rows, ipStates] = await Promise.all([loadedDatasets(database(c.env)), datasetStates(c.env.DB)]);
    // IP datasets record what they cover with their generation (ip_datasets.coverage).
    const ipCoverage = new Map(ipStates.filter((s) => s.active !== null).map((s) => [s.name, readCoverage(s.coverage)]));
    const loaded = rows.map((d) => ({
      name: d.name,
      version: d.version,
      records: d.records,
      loaded_at: new Date(d.loadedAt).toISOString(),
      ...(ipCoverage.has(d.name) ? { coverage: ipCoverage.get(d.name)! } : {}),
    }));
    loadedAt ??= new Date().toISOString();
    const bundled = bundledDatasets().map((s) => ({ ...s, loaded_at: loadedAt! }));
    return ok(c, { datasets: [...bundled, ...loaded].sort((a, b) => a.name.localeCompare(b.name)) });
  },
);
