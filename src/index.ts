import { app } from "./app";

export { AccountCredits } from "../durable-objects/account-credits";
export { RateLimiter } from "../durable-objects/rate-limiter";

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
