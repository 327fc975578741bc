import { app } from "./app";
import { cronWork } from "./cron";
import { handleJobMessages, type JobMessage } from "./queue";

export { AccountCredits } from "../durable-objects/account-credits";
export { RateLimiter } from "../durable-objects/rate-limiter";
export { SmtpSidecar } from "../durable-objects/smtp-sidecar";
export { Recovery } from "../durable-objects/recovery";

export default {
  fetch: app.fetch,
  async queue(batch, env, _ctx) {
    await handleJobMessages(batch, env);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(cronWork(controller.cron, env));
  },
} satisfies ExportedHandler<Env, JobMessage>;
