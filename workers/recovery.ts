import { requeueStalledJobs, requeueUnsentEvents, requeueUnsentMail, openRuns } from "../src/engines/bulk/recovery";
import { openMail, requeueStalledMail, STALE_MAIL_MS } from "../src/engines/mail/outbox";
import { openDeliveries, requeueStalledDeliveries, STALE_DELIVERY_MS } from "../src/engines/webhooks/outbox";
import { RECOVERY_STALL_MS } from "../src/engines/recovery";
import { dropSettledMonitorBodies } from "../src/engines/webhooks/retention";

const DAY_MS = 86_400_000;

/**
 * Re-queues everything stalled and drops the bodies of settled monitor deliveries; says whether any run or delivery
 * is still open (so the alarm goes on).
 */
export async function sweepStalled(env: Env, now = Date.now()) {
  const [runs, deliveries, events, mail, finishedMail, droppedBodies] = await Promise.all([
    requeueStalledJobs(env, now, RECOVERY_STALL_MS),
    requeueStalledDeliveries(env, now, STALE_DELIVERY_MS),
    requeueUnsentEvents(env, now, RECOVERY_STALL_MS),
    requeueStalledMail(env, now, STALE_MAIL_MS),
    requeueUnsentMail(env, now, RECOVERY_STALL_MS),
    // Settlements of the last day: older ones were dropped by earlier sweeps, or are by the daily retention sweep.
    dropSettledMonitorBodies(env, now, DAY_MS),
  ]);
  const [runsOpen, deliveriesOpen, mailOpen] = await Promise.all([openRuns(env), openDeliveries(env), openMail(env)]);
  return {
    runs,
    deliveries,
    events,
    mail,
    finishedMail,
    droppedBodies,
    open: runsOpen + deliveriesOpen + mailOpen > 0,
  };
}
