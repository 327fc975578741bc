import { sidecarTarget } from "../../platform/smtp-sidecar-client";
import { DEFAULT_RETRY_BASE_MS, DEFAULT_TIMEOUT_MS, type DeliveryConfig } from "../../platform/webhooks";

/** A positive (or, where allowed, zero) number from a var; anything else falls back to the default. */
function numberVar(value: string | undefined, fallback: number, allowZero: boolean): number {
  const parsed = value === undefined || value.trim() === "" ? Number.NaN : Number(value);
  return Number.isFinite(parsed) && (parsed > 0 || (allowZero && parsed === 0)) ? parsed : fallback;
}

/**
 * Delivery settings from vars. WEBHOOKS_ALLOW_LOOPBACK is a development switch, off in production;
 * WEBHOOK_TIMEOUT_MS and WEBHOOK_RETRY_BASE_MS exist so tests can shorten the waits (a zero backoff is allowed, a zero
 * timeout is not, since it would fail every attempt).
 */
export function deliveryConfig(env: Env): DeliveryConfig {
  // Attempts go through the sidecar, which connects to the address the guard checked (DNS rebinding): the one the
  // mailbox probes use, SMTP_SIDECAR_URL in dev and tests, else the Container binding in production.
  const target = sidecarTarget(env);
  return {
    dohUrl: env.DOH_URL,
    relay: target ? { target, secret: env.SMTP_SIDECAR_SECRET } : null,
    allowLoopback: env.WEBHOOKS_ALLOW_LOOPBACK === "true",
    timeoutMs: numberVar(env.WEBHOOK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, false),
    retryBaseMs: numberVar(env.WEBHOOK_RETRY_BASE_MS, DEFAULT_RETRY_BASE_MS, true),
  };
}
