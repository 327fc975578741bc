import { sweepStalled } from "./engines/recovery";
import { queueDueMonitors } from "../workers/monitors";
import { sweepRetention } from "../workers/retention";

/**
 * Every five minutes: due monitors are queued, and stalled runs and deliveries are picked up again (a backstop: the
 * recovery alarm does it within two minutes of a crash). Daily: retention.
 */
export const EVERY_FIVE_MINUTES = "*/5 * * * *";

export function cronWork(cron: string, env: Env): Promise<unknown> {
  if (cron === EVERY_FIVE_MINUTES) return Promise.all([sweepStalled(env), queueDueMonitors(env)]);
  return sweepRetention(env);
}
