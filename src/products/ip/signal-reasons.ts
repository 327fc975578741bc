import { isExhaustive, isSample } from "../../db/coverage";
import type { Source } from "../../engines/sources";
import type { SignalReason } from "./result";
import type { InstalledDataset, RangeHit } from "./store";

export interface Signal {
  value: boolean | null;
  reason: SignalReason | null;
}

/**
 * A yes/no signal read from lists: on one of them, true; on none, false only when one of the installed lists is the
 * complete published one (a sample or part of a list cannot say no); null with its reason otherwise.
 */
export function listedSignal(hit: RangeHit | null, lists: InstalledDataset[], holders: Set<string>): Signal {
  if (hit === null) return { value: null, reason: "not_checked" };
  if (lists.length === 0) return { value: null, reason: "dataset_not_installed" };
  const holding = lists.filter((d) => holders.has(d.name));
  if (holding.length) return { value: true, reason: holding.every((d) => isSample(d.coverage)) ? "sample_data" : null };
  if (lists.some((d) => isExhaustive(d.coverage))) return { value: false, reason: null };
  return { value: null, reason: lists.every((d) => isSample(d.coverage)) ? "sample_data" : "not_covered" };
}

/**
 * `sources` keeps every dataset consulted; one that decided no field of the answer says so (`decided: false`): a
 * sample or part of a file that does not hold the address said nothing about it, so the try-it page does not tint it
 * as if it had decided something (docs/dashboard.md, "Try it").
 */
export function markUndecided(
  sources: Source[],
  decided: (dataset: string) => boolean,
  installed: Map<string, InstalledDataset>,
): Source[] {
  return sources.map((s): Source => {
    const dataset = installed.get(s.dataset);
    return dataset && !isExhaustive(dataset.coverage) && !decided(s.dataset) ? { ...s, decided: false } : s;
  });
}
