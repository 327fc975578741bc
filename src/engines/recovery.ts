/**
 * Crash recovery of queued work, one place for every engine. A run or a pending delivery untouched for
 * `RECOVERY_STALL_MS` (a delivery: `STALE_DELIVERY_MS`) lost its consumer or its message (a killed process, a failed
 * send): the sweep queues it again. A live run is touched at least every `HEARTBEAT_MS` while it works.
 * Re-running is safe: chunks settle once per operation id and record progress once, a delivery or mail attempt is
 * recorded once. Mail: a pending message `STALE_MAIL_MS` past its due time. The sweep itself is a job:
 * workers/recovery.ts.
 */
export const RECOVERY_STALL_MS = 30_000;
/** While any run or delivery is open, the alarm looks again this often; so recovery takes at most stall + check. */
export const RECOVERY_CHECK_MS = 15_000;
/** A run's consumer touches the run this often while a chunk is in flight, so a slow chunk never looks stalled. */
export const HEARTBEAT_MS = 10_000;

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
