import { Hono } from "hono";
import { z } from "zod";
import { secretKey } from "../../auth/secret-key";
import { database } from "../../db/client";
import { coverageBody, type Coverage } from "../../db/coverage";
import { loadedDatasets } from "../../db/datasets";
import { refreshViews } from "../../engines/datasets/schedule";
import { refreshableDatasets } from "../../products/refreshable";
import { ok } from "../../http/envelope";
import { describe } from "../../http/openapi";
import { RDAP_BOOTSTRAP_RECORDS, RDAP_BOOTSTRAP_VERSION } from "../../platform/rdap";
import { registeredProducts } from "../../products/registry";
import type { AppEnv } from "../../types";

/**
 * Bundled snapshots load with the Worker: their load time is this instance's first request (the clock is frozen at 0 at
 * startup).
 */
let loadedAt: string | undefined;

/** Every registered product's bundled datasets, and the platform's own. */
const bundledDatasets = () => [
  ...registeredProducts().flatMap((p) => p.surface.bundled ?? []),
  // IANA's whole bootstrap file: a TLD it does not list has no RDAP service.
  {
    name: "rdap-bootstrap",
    version: RDAP_BOOTSTRAP_VERSION,
    records: RDAP_BOOTSTRAP_RECORDS,
    coverage: { kind: "full" as const },
  },
];

const NOT_INSTALLED: Coverage = {
  kind: "partial",
  note: "Not installed: its first scheduled refresh has not succeeded.",
};

const refreshSchema = z
  .object({
    status: z.enum(["never", "running", "ok", "failed"]),
    phase: z.enum(["fetch", "import", "sweep"]).nullable(),
    last_attempt_at: z.iso.datetime().nullable(),
    last_success_at: z.iso.datetime().nullable(),
    generation: z.int().nullable(),
    error: z.string().nullable(),
    stale: z.boolean(),
    coverage_note: z
      .string()
      .nullable()
      .describe(
        "Why what the last refresh installed is below the publisher's whole file: `partial`, its rows short of the " +
          "floor of a complete file, or `sample`, served by a stand-in publisher as `npm run dev -- --offline` runs " +
          "them (docs/operations.md). Null otherwise.",
      ),
  })
  .nullable()
  .describe("The scheduled refresh from the publisher; null for a dataset that is not refreshed on schedule.");

const datasetSchema = z.object({
  name: z.string(),
  version: z.string().nullable().describe("Null: a refreshed dataset whose first import has not succeeded yet."),
  records: z.int().nullable(),
  loaded_at: z.iso.datetime().nullable(),
  coverage: coverageBody.describe(
    "What the dataset covers: `full` (the publisher's complete file, for `countries` when named), `partial` (named " +
      "countries or regions, or a file known to leave values out) or `sample` (a few named values). Only a `full` " +
      "dataset turns a value it lacks into a negative answer. A refreshed dataset not installed yet covers nothing " +
      "(`partial`).",
  ),
  refresh: refreshSchema,
});

export const statusRoutes = new Hono<AppEnv>().get(
  "/status/data",
  describe({
    operationId: "getDataStatus",
    tag: "Status",
    summary: "Every dataset behind the answers, with the version that `sources` reports",
    description: "Any valid secret key may call it, whatever its scopes.",
    response: z.object({ datasets: z.array(datasetSchema) }),
  }),
  secretKey(),
  async (c) => {
    const rows = await loadedDatasets(database(c.env));
    const refreshed = await refreshViews(c.env, Date.now(), refreshableDatasets(), rows);
    const refresh = new Map(refreshed.map((r) => [r.name, r.refresh]));
    const loaded = rows.map((d) => ({
      name: d.name,
      version: d.version as string | null,
      records: d.records as number | null,
      loaded_at: new Date(d.loadedAt).toISOString() as string | null,
      coverage: d.coverage,
    }));
    const names = new Set(rows.map((d) => d.name));
    // A refreshed dataset without a `datasets` row: nothing installed yet, or a delta applied onto another dataset's
    // rows (what it covers once it has run is what it declares).
    const notYet = refreshed
      .filter((r) => !names.has(r.name))
      .map((r) => ({
        name: r.name,
        version: null,
        records: null,
        loaded_at: null,
        coverage: r.refresh.last_success_at ? r.coverage : NOT_INSTALLED,
      }));
    loadedAt ??= new Date().toISOString();
    const bundled = bundledDatasets().map((s) => ({ ...s, loaded_at: loadedAt! }));
    const all = [...bundled, ...loaded, ...notYet].map((d) => ({ ...d, refresh: refresh.get(d.name) ?? null }));
    return ok(c, { datasets: all.sort((a, b) => a.name.localeCompare(b.name)) });
  },
);
