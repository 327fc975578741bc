import { requeueStalledJobs, requeueUnsentEvents, openRuns } from "./bulk/recovery";
import { openDeliveries, requeueStalledDeliveries } from "./webhooks/outbox";

/**
 * Crash recovery of queued work, one place for every engine. A run or a pending delivery untouched for
 * `RECOVERY_STALL_MS` lost its consumer or its message (a killed process, a failed send): the sweep queues it again.
 * Re-running is safe: chunks settle once per operation id and record progress once, a delivery attempt is recorded once.
 */
export const RECOVERY_STALL_MS = 60_000;
/** While any run or delivery is open, the alarm looks again this often; so recovery takes at most stall + check. */
export const RECOVERY_CHECK_MS = 30_000;

export const recoveryStub = (env: Env) => env.RECOVERY.get(env.RECOVERY.idFromName("recovery"));

/**
 * Arms the recovery alarm for work that starts now. Best effort: if the call fails, the 5-minute cron still sweeps,
 * so the work itself never fails for it.
 */
export async function armRecovery(env: Env, now = Date.now()): Promise<void> {
  try {
    await recoveryStub(env).arm(now + RECOVERY_STALL_MS);
  } catch (err) {
    console.error(JSON.stringify({ event: "recovery_arm_failed", error: String(err) }));
  }
}

/** Re-queues everything stalled for `staleMs`; says whether any run or delivery is still open (so the alarm goes on). */
export async function sweepStalled(env: Env, now = Date.now(), staleMs = RECOVERY_STALL_MS) {
  const [runs, deliveries, events] = await Promise.all([requeueStalledJobs(env, now, staleMs), requeueStalledDeliveries(env, now, staleMs), requeueUnsentEvents(env, now, staleMs)]);
  const [runsOpen, deliveriesOpen] = await Promise.all([openRuns(env), openDeliveries(env)]);
  return { runs, deliveries, events, open: runsOpen + deliveriesOpen > 0 };
}
