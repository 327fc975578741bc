import { sweepStalled } from "../workers/recovery";
import { queueDueMonitors } from "../workers/monitors";
import { refreshDatasets } from "../workers/dataset-refresh";
import { sweepRetention } from "../workers/retention";

/**
 * Every five minutes: due monitors are queued, and stalled runs and deliveries are picked up again (a backstop: the
 * recovery alarm does it within two minutes of a crash). Every quarter hour: due dataset refreshes. Daily: retention.
 */
export const EVERY_FIVE_MINUTES = "*/5 * * * *";
export const DATASET_REFRESH = "1-59/15 * * * *";

export function cronWork(cron: string, env: Env): Promise<unknown> {
  if (cron === EVERY_FIVE_MINUTES) return Promise.all([sweepStalled(env), queueDueMonitors(env)]);
  if (cron === DATASET_REFRESH) return refreshDatasets(env);
  return sweepRetention(env);
}
