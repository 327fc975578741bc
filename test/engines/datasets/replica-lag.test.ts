import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { switchDelaySeconds } from "../../../src/engines/datasets/handover";
import { familyOf } from "../../../src/engines/datasets/refreshable";
import { refreshableDatasets } from "../../../src/products/refreshable";

/**
 * Rows that live apart from their bookkeeping (the address datasets in REFERENCE_ADDRESS) are switched to only a while
 * after their last rows are written, and the old generation swept only a while after the switch, so a replica of
 * either database that lags the other never reads through a generation whose rows it lacks; rows beside their
 * bookkeeping in DB wait for nothing.
 */
describe("the waits of a refresh whose rows live in another database", () => {
  const datasets = refreshableDatasets();
  const apart = datasets.filter((d) => familyOf(d) !== "main");
  const beside = datasets.filter((d) => familyOf(d) === "main");
  const configured = (value: string | undefined) => ({ ...env, DATASET_SWEEP_DELAY_S: value }) as Env;

  it("wait the configured seconds for rows in another database, none for rows beside DB's bookkeeping", () => {
    expect(apart.map((d) => d.name)).toContain("fr-ban");
    expect(beside.length).toBeGreaterThan(0);
    for (const dataset of apart) expect(switchDelaySeconds(configured("45"), dataset), dataset.name).toBe(45);
    for (const dataset of beside) expect(switchDelaySeconds(configured("45"), dataset), dataset.name).toBe(0);
  });

  it("wait 60 s when the setting is missing or not a number, never nothing by mistake", () => {
    for (const value of [undefined, "", "soon"]) expect(switchDelaySeconds(configured(value), apart[0]!)).toBe(60);
    expect(switchDelaySeconds(configured("0"), apart[0]!)).toBe(0);
  });
});
