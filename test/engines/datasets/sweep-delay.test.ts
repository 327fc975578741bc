import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sweepDelaySeconds } from "../../../src/engines/datasets/handover";
import { refreshableDatasets } from "../../../src/products/refreshable";

/**
 * Rows that live apart from their bookkeeping (the address datasets in REFERENCE_ADDRESS) are swept only after the
 * configured delay, so a lagging replica of DB that still names the old generation finds its rows; rows beside their
 * bookkeeping are swept at once.
 */
describe("the sweep after a switch of generation", () => {
  const datasets = refreshableDatasets();
  const production = { ...env, DATASET_SWEEP_DELAY_S: "60" } as Env;

  it("waits the configured seconds for rows in another database, none for rows beside DB's bookkeeping", () => {
    const apart = datasets.filter((d) => (d.family ?? "main") !== "main");
    const beside = datasets.filter((d) => (d.family ?? "main") === "main");
    expect(apart.map((d) => d.name)).toContain("fr-ban");
    expect(beside.length).toBeGreaterThan(0);
    for (const dataset of apart) expect(sweepDelaySeconds(production, dataset), dataset.name).toBe(60);
    for (const dataset of beside) expect(sweepDelaySeconds(production, dataset), dataset.name).toBe(0);
  });
});
