import { probeDomain } from "../../platform/domain-probe";
import { allUnavailable, sidecarTarget } from "../../platform/smtp-sidecar-client";
import type { DnsConfig } from "./domain-facts";
import type { MailboxProber } from "./lookup";

export const DEFAULT_TIMEOUT_SECONDS = 10;

/** Email's options beyond the walk's own (in `WalkOptions.extra`). */
export interface EmailExtra {
  /** Seconds the handshake may wait (the request's `timeout`). */
  timeout?: number | null;
  /** Settling re-checks must ask the mail server again, past the 15-minute reuse of uncertain answers. */
  skipUncertainReuse?: boolean;
}

/**
 * DNS and the SMTP sidecar from vars and bindings; without a sidecar every handshake answers `provider_unavailable`.
 */
export function emailConfig(env: Env): {
  dns: DnsConfig;
  prober: (timeoutSeconds: number, accountId?: string | null) => MailboxProber;
} {
  return {
    dns: { dohUrl: env.DOH_URL, rdapBaseUrl: env.RDAP_BASE_URL || undefined },
    prober: (timeoutSeconds, accountId) => async (asked) => {
      const { domain, addresses } = asked;
      // The account goes along so the sidecar can bound its free uncertain answers (docs/email.md, "Pacing").
      const request = { ...asked, timeoutMs: timeoutSeconds * 1000, ...(accountId ? { account: accountId } : {}) };
      // Each domain's probes go to its own sidecar instance (session reuse, per-domain politeness), in as many calls as
      // the list needs.
      const target = sidecarTarget(env, domain);
      if (target) return probeDomain(target, env.SMTP_SIDECAR_SECRET, request);
      return allUnavailable(addresses);
    },
  };
}
