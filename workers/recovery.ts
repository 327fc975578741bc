import { requeueStalledJobs, requeueUnsentEvents, requeueUnsentMail, openRuns } from "../src/engines/bulk/recovery";
import { openMail, requeueStalledMail, STALE_MAIL_MS } from "../src/engines/mail/outbox";
import { openDeliveries, requeueStalledDeliveries, STALE_DELIVERY_MS } from "../src/engines/webhooks/outbox";
import { RECOVERY_STALL_MS } from "../src/engines/recovery";

/** Re-queues everything stalled; says whether any run or delivery is still open (so the alarm goes on). */
export async function sweepStalled(env: Env, now = Date.now()) {
  const [runs, deliveries, events, mail, finishedMail] = await Promise.all([
    requeueStalledJobs(env, now, RECOVERY_STALL_MS),
    requeueStalledDeliveries(env, now, STALE_DELIVERY_MS),
    requeueUnsentEvents(env, now, RECOVERY_STALL_MS),
    requeueStalledMail(env, now, STALE_MAIL_MS),
    requeueUnsentMail(env, now, RECOVERY_STALL_MS),
  ]);
  const [runsOpen, deliveriesOpen, mailOpen] = await Promise.all([openRuns(env), openDeliveries(env), openMail(env)]);
  return { runs, deliveries, events, mail, finishedMail, open: runsOpen + deliveriesOpen + mailOpen > 0 };
}
