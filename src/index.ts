import { handleJobMessages, recoverStalledJobs } from "../workers/bulk-runner";
import type { JobMessage } from "./jobs/bulk-engine";
import { queueDueMonitors } from "../workers/monitors";
import { sweepRetention } from "../workers/retention";
import { app } from "./app";

export { AccountCredits } from "../durable-objects/account-credits";
export { RateLimiter } from "../durable-objects/rate-limiter";

export default {
  fetch: app.fetch,
  async queue(batch, env, _ctx) {
    await handleJobMessages(batch, env);
  },
  async scheduled(controller, env, ctx) {
    const work = controller.cron === "*/5 * * * *" ? Promise.all([recoverStalledJobs(env), queueDueMonitors(env)]) : sweepRetention(env);
    ctx.waitUntil(work);
  },
} satisfies ExportedHandler<Env, JobMessage>;
