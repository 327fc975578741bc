import { handleJobMessages, recoverStalledJobs } from "../workers/bulk-runner";
import type { JobMessage } from "./jobs/bulk-engine";
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
    ctx.waitUntil(controller.cron === "*/5 * * * *" ? recoverStalledJobs(env) : sweepRetention(env));
  },
} satisfies ExportedHandler<Env, JobMessage>;
