import { Hono } from "hono";
import { z } from "zod";
import { secretKey } from "../auth/secret-key";
import { database } from "../db/client";
import { coverageBody } from "../db/coverage";
import { loadedDatasets } from "../db/datasets";
import { ok } from "../http/envelope";
import { describe } from "../http/openapi";
import { BUNDLED_SNAPSHOTS } from "../products/email/datasets";
import { BUNDLED_PHONE_DATASETS } from "../products/phone/datasets";
import { RDAP_BOOTSTRAP_RECORDS, RDAP_BOOTSTRAP_VERSION } from "../platform/rdap";
import type { AppEnv } from "../types";

/** Bundled snapshots load with the Worker: their load time is this instance's first request (the clock is frozen at 0 at startup). */
let loadedAt: string | undefined;

const bundledDatasets = () => [
  ...BUNDLED_SNAPSHOTS,
  ...BUNDLED_PHONE_DATASETS,
  // IANA's whole bootstrap file: a TLD it does not list has no RDAP service.
  { name: "rdap-bootstrap", version: RDAP_BOOTSTRAP_VERSION, records: RDAP_BOOTSTRAP_RECORDS, coverage: { kind: "full" as const } },
];

const datasetSchema = z.object({
  name: z.string(),
  version: z.string(),
  records: z.int(),
  loaded_at: z.iso.datetime(),
  coverage: coverageBody.describe(
    "What the dataset covers: `full` (the publisher's complete file, for `countries` when named), `partial` (named countries or regions, or a file known to leave values out) or `sample` (a few named values). Only a `full` dataset turns a value it lacks into a negative answer.",
  ),
});

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
    const rows = await loadedDatasets(database(c.env));
    const loaded = rows.map((d) => ({ name: d.name, version: d.version, records: d.records, loaded_at: new Date(d.loadedAt).toISOString(), coverage: d.coverage }));
    loadedAt ??= new Date().toISOString();
    const bundled = bundledDatasets().map((s) => ({ ...s, loaded_at: loadedAt! }));
    return ok(c, { datasets: [...bundled, ...loaded].sort((a, b) => a.name.localeCompare(b.name)) });
  },
);
