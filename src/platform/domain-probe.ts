import {
  probeMailboxes,
  type SidecarAddressResult,
  type SidecarOutcome,
  type SidecarProbeResult,
} from "./smtp-sidecar-client";
import type { SidecarTarget } from "./sidecar-request";

/**
 * What one sidecar call takes (workers/smtp-sidecar/request-schema.mjs `LIMITS`; a sidecar test pins the two equal).
 * 50 recipients a transaction is also what Postfix sends one destination by default
 * (default_destination_recipient_limit).
 */
export const SIDECAR_LIMITS = Object.freeze({ addresses: 50, mxHosts: 20, addressLength: 254, localPartLength: 64 });

/**
 * Calls in flight per domain for one list, so a long list meets the mail server in at most 4 sessions at once (near
 * where Postfix starts a destination, 5); the sidecar's own cap (20 per domain and MX address) leaves the rest to
 * other lookups at the same domain.
 */
export const DOMAIN_LANES = 4;

const ATEXT = "A-Za-z0-9!#$%&'*+/=?^_`{|}~-";
const DOT_ATOM = new RegExp(`^[${ATEXT}]+(?:\\.[${ATEXT}]+)*$`);

/**
 * Whether the sidecar can put `address` in a RCPT command: a dot-atom local part of printable ASCII (no quoted
 * string, no UTF-8, which would need SMTPUTF8) at exactly `domain`, within the length limits. The sidecar refuses a
 * whole call holding any other address, so such an address is answered on its own and never sent.
 */
export function isProbeable(address: string, domain: string): boolean {
  const at = address.lastIndexOf("@");
  const local = address.slice(0, at);
  return (
    at > 0 &&
    address.length <= SIDECAR_LIMITS.addressLength &&
    local.length <= SIDECAR_LIMITS.localPartLength &&
    DOT_ATOM.test(local) &&
    address.slice(at + 1).toLowerCase() === domain.toLowerCase()
  );
}

export interface DomainProbeRequest {
  domain: string;
  mxHosts: { host: string; preference: number }[];
  /** Any number of addresses at `domain`, in any form the lookup accepted. */
  addresses: string[];
  /** Each call's deadline, 2000 to 60000 ms. */
  timeoutMs: number;
  /** Whether the domain is a catch-all when the caller knows it already (a provider's rule): no random address. */
  catchAllKnown?: boolean | null;
  /** The account the lookup is for (the sidecar bounds free uncertain answers per account). */
  account?: string;
}

/** The answer with how many sidecar calls it took. */
export type DomainProbeResult = SidecarProbeResult & { calls: number };

/** No RCPT reply heard: the domain's mail server did not hold a conversation at all. */
const SILENT = new Set<SidecarOutcome>([
  "timeout",
  "deferred",
  "unavailable",
  "refused_private",
  "provider_unavailable",
]);
const heardNothing = (probe: SidecarProbeResult) =>
  probe.results.every((r) => r.smtpCode === null && SILENT.has(r.outcome));

const unanswered = (address: string, outcome: SidecarOutcome): SidecarAddressResult => ({
  address,
  outcome,
  smtpCode: null,
  smtpMessage: null,
  enhancedStatus: null,
});

/**
 * Every address of one domain through the sidecar, however many: calls of at most 50 addresses, at most
 * `DOMAIN_LANES` in flight, each with the request's deadline. The first call goes alone and asks the random address
 * (catch-all); the rest ask it only while no call has answered it. The sidecar keeps the domain's sessions between
 * calls (workers/smtp-sidecar/session-pool.mjs). An address the sidecar cannot take is
 * answered `provider_unavailable` (unverified, free) without spoiling the others; when a call heard no RCPT reply at
 * all, the calls left are not made and their addresses share that call's outcome, so a dead mail server costs one
 * deadline, not one per 50 addresses. Results come in the order of `addresses`. Never throws.
 * @param fetchImpl used for `{ url }` targets
 */
export async function probeDomain(
  target: SidecarTarget,
  secret: string,
  request: DomainProbeRequest,
  fetchImpl: typeof fetch = fetch,
): Promise<DomainProbeResult> {
  const mxHosts = [...request.mxHosts].sort((a, b) => a.preference - b.preference).slice(0, SIDECAR_LIMITS.mxHosts);
  const probeable = [...new Set(request.addresses.filter((a) => isProbeable(a, request.domain)))];
  const batches: string[][] = [];
  for (let i = 0; i < probeable.length; i += SIDECAR_LIMITS.addresses)
    batches.push(probeable.slice(i, i + SIDECAR_LIMITS.addresses));

  const answers = new Map<string, SidecarAddressResult>();
  const merged = {
    mxHost: null as string | null,
    catchAll: request.catchAllKnown ?? null,
    catchAllAnswer: null as SidecarProbeResult["catchAllAnswer"],
    checkedAt: "",
    calls: 0,
  };
  const { domain, timeoutMs, account } = request;
  let silence: SidecarOutcome | null = null;
  const ask = async (addresses: string[]) => {
    if (silence) return addresses.forEach((a) => answers.set(a, unanswered(a, silence!)));
    const catchAllProbe = merged.catchAll === null;
    merged.calls += 1;
    const probe = await probeMailboxes(
      target,
      secret,
      { domain, mxHosts, addresses, timeoutMs, catchAllProbe, ...(account ? { account } : {}) },
      fetchImpl,
    );
    for (const result of probe.results) answers.set(result.address, result);
    if (catchAllProbe && probe.catchAll !== null) merged.catchAll = probe.catchAll;
    // Why the verdict is missing, while it is: what the random address got most recently.
    if (catchAllProbe && merged.catchAll === null) merged.catchAllAnswer = probe.catchAllAnswer;
    merged.mxHost ??= probe.mxHost;
    // The earliest call's time: an answer is never taken for younger than it is.
    if (!merged.checkedAt || probe.checkedAt < merged.checkedAt) merged.checkedAt = probe.checkedAt;
    if (heardNothing(probe)) silence ??= probe.results[0]?.outcome ?? "provider_unavailable";
  };

  const [first, ...rest] = batches;
  if (first) await ask(first);
  let next = 0;
  const lane = async () => {
    while (next < rest.length) await ask(rest[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(DOMAIN_LANES, rest.length) }, lane));

  return {
    mxHost: merged.mxHost,
    catchAll: merged.catchAll,
    catchAllAnswer: merged.catchAll === null ? merged.catchAllAnswer : null,
    checkedAt: merged.checkedAt || new Date().toISOString(),
    calls: merged.calls,
    results: request.addresses.map((a) => answers.get(a) ?? unanswered(a, "provider_unavailable")),
  };
}
