/** The TypeScript client: typed calls generated from the served OpenAPI document, and webhook verification. */
export { createClient, type Client, type ClientOptions } from "./client";
export { ApiError, retryAfterSeconds } from "./errors";
export type { paths, components } from "./openapi.gen";
export type { Answer, AnswerOf, Method, Operation, PathsWith, RequestOptions } from "./types";
export { memoryReplayStore, webhookVerifier, WebhookVerificationError, type ReplayStore, type WebhookFailure, type WebhookVerifierOptions } from "./webhooks";
