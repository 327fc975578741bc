/**
 * When a monitor runs and when a run is posted: plain rules, the same for every product (docs/entity-monitors.md).
 */
/** How often a monitor runs. */
export type Cadence = "weekly" | "monthly";

/** Which runs are posted. */
export type WebhookEvents = "changes" | "every_run";

const DAY_MS = 86_400_000;

/** The next run after `from`: 7 days for weekly, the same day of the next month (clamped to its length) for monthly. */
export function nextRunAfter(from: number, cadence: Cadence): number {
  if (cadence === "weekly") return from + 7 * DAY_MS;
  const d = new Date(from);
  const targetMonth = d.getUTCMonth() + 1;
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), targetMonth + 1, 0)).getUTCDate();
  return Date.UTC(
    d.getUTCFullYear(),
    targetMonth,
    Math.min(d.getUTCDate(), lastDay),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  );
}

/**
 * PATCH rule 3: the earlier of the run already scheduled and last run (or creation) + the new interval, so a run
 * already scheduled sooner still happens and a cadence change neither skips nor doubles a run.
 */
export function rescheduled(
  current: { nextRunAt: number; lastRunAt: number | null; createdAt: number },
  cadence: Cadence,
): number {
  return Math.min(current.nextRunAt, nextRunAfter(current.lastRunAt ?? current.createdAt, cadence));
}

/** `changes` posts only runs that found a change or stopped early; `every_run` posts every run. */
export const shouldPost = (
  events: WebhookEvents,
  summary: { changed: number; stopped_reason: string | null },
): boolean => events === "every_run" || summary.changed > 0 || summary.stopped_reason !== null;
