/**
 * The queue message that runs one due monitor. `dueAt` is the `next_run_at` it was queued for: the run claims the
 * monitor by moving `next_run_at` on from exactly that value, so a redelivered or doubly queued message runs it once.
 */
export type MonitorMessage = { type: "monitor_run"; monitorId: number; dueAt: number };
