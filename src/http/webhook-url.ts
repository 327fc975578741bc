import { webhookUrlProblem } from "../engines/webhooks/url-rule";
import { validationFailed } from "./errors";

/**
 * Request-time check of a webhook or callback URL (the rule: src/engines/webhooks/url-rule.ts). Throws a 422
 * VALIDATION_FAILED naming `field`.
 */
export function assertWebhookUrl(env: Env, field: string, url: string): void {
  const problem = webhookUrlProblem(env, url);
  if (problem) throw validationFailed({ [field]: [problem] });
}
