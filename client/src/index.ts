/** The TypeScript client: typed calls generated from the served OpenAPI document, and webhook verification. */
export { createClient, type Client, type ClientOptions } from "./client.js";
export { ApiError, retryAfterSeconds } from "./errors.js";
export type { paths, components } from "./openapi.gen.js";
export type { Answer, AnswerOf, Method, Operation, PathsWith, RequestOptions } from "./types.js";
export {
  memoryReplayStore,
  webhookVerifier,
  WebhookVerificationError,
  type ReplayStore,
  type WebhookFailure,
  type WebhookVerifierOptions,
} from "./webhooks.js";
