import { sweepRetention } from "../workers/retention";
import { app } from "./app";

export { AccountCredits } from "../durable-objects/account-credits";
export { RateLimiter } from "../durable-objects/rate-limiter";

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(sweepRetention(env));
  },
} satisfies ExportedHandler<Env>;
