import { recoverStalledJobs } from "./engines/bulk/run";
import { requeueStalledDeliveries } from "./engines/webhooks/outbox";
import { queueDueMonitors } from "../workers/monitors";
import { sweepRetention } from "../workers/retention";

/** Every five minutes: stalled runs and deliveries are picked up again, due monitors are queued. Daily: retention. */
export const EVERY_FIVE_MINUTES = "*/5 * * * *";

export function cronWork(cron: string, env: Env): Promise<unknown> {
  if (cron === EVERY_FIVE_MINUTES) return Promise.all([recoverStalledJobs(env), requeueStalledDeliveries(env), queueDueMonitors(env)]);
  return sweepRetention(env);
}
