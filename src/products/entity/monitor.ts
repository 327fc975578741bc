/**
 * Entity monitors as plain rules: when the next run is due, what changed since the baseline, and what a run posts.
 * Cost of a run (docs/entity.md): like a batch lookup, 1 credit per identifier a register carried, read fresh from the
 * registers (no repeat window: a monitor exists to see changes); a run the balance cannot finish stops early.
 */
export type Cadence = "weekly" | "monthly";

const DAY_MS = 86_400_000;

/** The next run after `from`: 7 days for weekly, the same day of the next month (clamped) for monthly. */
export function nextRunAfter(from: number, cadence: Cadence): number {
  if (cadence === "weekly") return from + 7 * DAY_MS;
  const d = new Date(from);
  const targetMonth = d.getUTCMonth() + 1;
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), targetMonth + 1, 0)).getUTCDate();
  return Date.UTC(d.getUTCFullYear(), targetMonth, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds());
}

/**
 * PATCH rule 3: a run already scheduled sooner still happens, and the new interval applies from the last run (or
 * creation): the earlier of the two, so a cadence change neither skips nor doubles a run.
 */
export function rescheduled(current: { nextRunAt: number; lastRunAt: number | null; createdAt: number }, cadence: Cadence): number {
  return Math.min(current.nextRunAt, nextRunAfter(current.lastRunAt ?? current.createdAt, cadence));
}

/** The fields a run compares with the baseline. */
export interface Observed {
  found: boolean;
  name: string | null;
  status: string | null;
  flags: string[];
}

export interface Change {
  field: keyof Observed;
  from: unknown;
  to: unknown;
}

export function compare(baseline: Observed, now: Observed): Change[] {
  const changes: Change[] = [];
  if (baseline.found !== now.found) changes.push({ field: "found", from: baseline.found, to: now.found });
  if (baseline.name !== now.name) changes.push({ field: "name", from: baseline.name, to: now.name });
  if (baseline.status !== now.status) changes.push({ field: "status", from: baseline.status, to: now.status });
  const before = [...baseline.flags].sort();
  const after = [...now.flags].sort();
  if (before.join(",") !== after.join(",")) changes.push({ field: "flags", from: before, to: after });
  return changes;
}

export interface RunSummary {
  checked: number;
  found: number;
  changed: number;
  new_baselines: number;
  credits_used: number;
  stopped_reason: "insufficient_credits" | "key_spend_cap" | null;
}

/** `webhook_events: changes` posts only runs that found a change or stopped early; `every_run` posts every run. */
export const shouldPost = (events: "changes" | "every_run", summary: RunSummary) =>
  events === "every_run" || summary.changed > 0 || summary.stopped_reason !== null;
