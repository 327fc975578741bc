import { DurableObject } from "cloudflare:workers";
import { RECOVERY_CHECK_MS } from "../src/engines/recovery";
import { sweepStalled } from "../workers/recovery";

/**
 * The recovery alarm (one instance). Work that starts (a run, a delivery) arms it for when that work would count as
 * stalled; when it fires it sweeps (re-queues stalled runs, lost deliveries, unsent finished events) and, while any
 * run or delivery is still open, fires again `RECOVERY_CHECK_MS` later. Alarms are durable, so the sweep also runs
 * after the whole runtime restarts, without waiting for a cron (and `wrangler dev` fires no cron by itself).
 */
export class Recovery extends DurableObject<Env> {
  /** Makes sure the alarm fires by `at`: an earlier alarm stands. */
  async arm(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  override async alarm(): Promise<void> {
    const { open } = await sweepStalled(this.env);
    if (open) await this.ctx.storage.setAlarm(Date.now() + RECOVERY_CHECK_MS);
  }
}
