import { app } from "./app";
import { lastResortAnswer } from "./http/error-handler";
import { cronWork } from "./cron";
import { runInIoScope } from "./platform/io-scope";
import { runTraced } from "./platform/trace";
import { tracedEnv } from "./platform/traced-env";
import { handleJobMessages, type JobMessage } from "./queue";

export { AccountObject } from "../durable-objects/account-object";
export { RateLimiter } from "../durable-objects/rate-limiter";
export { SmtpSidecar } from "../durable-objects/smtp-sidecar";
export { Recovery } from "../durable-objects/recovery";

export default {
  // Each request runs in its own trace, with storage bindings that count their round trips (GET /admin/v1/round-trips).
  // Whatever escapes the app still answers the error envelope with a request id.
  async fetch(request: Request, env: Env, ctx: ExecutionContext) {
    try {
      return await runInIoScope(() => runTraced(app.fetch, request, tracedEnv(env), ctx));
    } catch (err) {
      return lastResortAnswer(err, request);
    }
  },
  async queue(batch, env, _ctx) {
    await runInIoScope(() => handleJobMessages(batch, env));
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runInIoScope(() => cronWork(controller.cron, env)));
  },
} satisfies ExportedHandler<Env, JobMessage>;
