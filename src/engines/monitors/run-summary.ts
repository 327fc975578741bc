import type { StopReason } from "../credits/credits";
import type { ChangeReason } from "./change-reason";

/** Also the monitor's `last_summary`; the product's tallies (entity: `found`) follow `checked`. */
export interface RunSummary {
  checked: number;
  [tally: string]: number | string | null;
  changed: number;
  new_baselines: number;
  credits_used: number;
  stopped_reason: StopReason | null;
}

/** One field that differs from the baseline. */
export interface Change {
  field: string;
  from: unknown;
  to: unknown;
}

/** One entry whose answer differs from its baseline, named by the product's `label`, with why it changed. */
export interface EntryChanges {
  identifier: string;
  input: unknown;
  changes: Change[];
  reason: ChangeReason | null;
}
