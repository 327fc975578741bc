import type { EntityResult } from "./result";

/**
 * What an entity monitor watches (docs/entity-monitors.md): whether a register carries the identifier, its name, its
 * status and its flags. Cost of a run: like a batch lookup, 1 credit per identifier a register carried; a repeat
 * within 7 days is read fresh from the register and costs nothing; a run the balance cannot finish stops early.
 */
export interface Observed extends Record<string, unknown> {
  found: boolean;
  name: string | null;
  status: string | null;
  flags: string[];
}

export const observe = (result: EntityResult): Observed => ({
  found: result.found,
  name: result.name,
  status: result.status,
  flags: result.flags,
});

export interface Change {
  field: string;
  from: unknown;
  to: unknown;
}

export function compare(baseline: Record<string, unknown>, now: Record<string, unknown>): Change[] {
  const before = baseline as Observed;
  const after = now as Observed;
  const changes: Change[] = [];
  for (const field of ["found", "name", "status"] as const) {
    if (before[field] !== after[field]) changes.push({ field, from: before[field], to: after[field] });
  }
  const flagsBefore = [...before.flags].sort();
  const flagsAfter = [...after.flags].sort();
  if (flagsBefore.join(",") !== flagsAfter.join(","))
    changes.push({ field: "flags", from: flagsBefore, to: flagsAfter });
  return changes;
}
