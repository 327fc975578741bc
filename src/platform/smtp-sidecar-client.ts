import { postToSidecar, type SidecarTarget } from "./sidecar-request";

/**
 * Client for the SMTP sidecar (workers/smtp-sidecar), the Node service that runs mailbox handshakes because a Worker
 * cannot open port 25: `POST /v1/probe` with body {domain, mx_hosts: [{host, preference}], addresses, timeout_ms,
 * catch_all_probe?}, signed as every sidecar request is (src/platform/sidecar-request.ts).
 */

/**
 * Sidecar outcomes (workers/smtp-sidecar/README.md), plus `provider_unavailable` when the sidecar itself could not be
 * reached or answered badly. `blocked`: the server refused the prober itself; `deferred`: not asked, the server's
 * tolerance for refused recipients being spent (the sidecar's pacing).
 */
export type SidecarOutcome =
  | "accepted"
  | "no_mailbox"
  | "mailbox_full"
  | "mailbox_disabled"
  | "greylisted"
  | "blocked"
  | "timeout"
  | "deferred"
  | "unavailable"
  | "refused_private"
  | "provider_unavailable";

export interface SidecarProbeRequest {
  /** The domain every address belongs to. */
  domain: string;
  mxHosts: { host: string; preference: number }[];
  /** 1 to 50 addresses at `domain`. */
  addresses: string[];
  /** The sidecar's whole-probe deadline, 2000 to 60000 ms. */
  timeoutMs: number;
  /** False when the caller already knows whether the domain is a catch-all: no random address asked (default true). */
  catchAllProbe?: boolean;
  /** The account the probe is for: the sidecar bounds its free uncertain answers per account and MX address. */
  account?: string;
}

export interface SidecarAddressResult {
  address: string;
  outcome: SidecarOutcome;
  smtpCode: number | null;
  smtpMessage: string | null;
  /** The reply's RFC 3463 enhanced status code (`5.2.2`), null without one. */
  enhancedStatus: string | null;
}

/** The sidecar's answer in camelCase: `mx_host`, `catch_all`, `checked_at`, `results[].smtp_code/smtp_message`. */
export interface SidecarProbeResult {
  mxHost: string | null;
  catchAll: boolean | null;
  /**
   * What the random address got when it was asked in this call (`catch_all_answer`); null when it was not asked (the
   * verdict was known) or the sidecar says nothing of it. It tells why `catchAll` is null.
   */
  catchAllAnswer: Omit<SidecarAddressResult, "address"> | null;
  checkedAt: string;
  results: SidecarAddressResult[];
}

/**
 * Where probes go: SMTP_SIDECAR_URL when set (dev, tests, or a sidecar run outside Cloudflare), else the production
 * Container (SMTP_SIDECAR); null when neither exists, and every handshake is then unavailable. With `domain`, the
 * Container instance is the domain's (`sidecarInstance`), so one domain's probes always meet the same sidecar: its
 * connection reuse and per-domain politeness hold however many instances run. Without one (webhook attempts, mail
 * submissions), instance 0.
 */
export function sidecarTarget(
  env: Pick<Env, "SMTP_SIDECAR_URL" | "SMTP_SIDECAR"> & { SMTP_SIDECAR_INSTANCES?: string },
  domain?: string,
): SidecarTarget | null {
  if (env.SMTP_SIDECAR_URL) return { url: env.SMTP_SIDECAR_URL };
  if (!env.SMTP_SIDECAR) return null;
  const instance = domain === undefined ? 0 : sidecarInstance(domain, Number(env.SMTP_SIDECAR_INSTANCES ?? 1));
  return { fetcher: env.SMTP_SIDECAR.get(env.SMTP_SIDECAR.idFromName(sidecarName(instance))) };
}

/** Instance 0 keeps the name the single instance always had, so scaling out leaves it where it was. */
export const sidecarName = (instance: number) => (instance === 0 ? "smtp-sidecar" : `smtp-sidecar-${instance}`);

/**
 * The instance (0 to `instances` - 1) that probes `domain`: FNV-1a of the lower-cased domain, modulo the count.
 * Stable across isolates and deploys while the count stays; changing the count moves most domains once.
 */
export function sidecarInstance(domain: string, instances: number): number {
  const count = Number.isInteger(instances) && instances > 1 ? instances : 1;
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(domain.toLowerCase())) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % count;
}

type WireResult = {
  address: string;
  outcome: SidecarOutcome;
  smtp_code: number | null;
  smtp_message: string | null;
  enhanced_status?: string | null;
};
type WireResponse = {
  mx_host: string | null;
  catch_all: boolean | null;
  catch_all_answer?: Omit<WireResult, "address"> | null;
  checked_at: string;
  results: WireResult[];
};

const SIDECAR_OUTCOMES = new Set<string>([
  "accepted",
  "no_mailbox",
  "mailbox_full",
  "mailbox_disabled",
  "greylisted",
  "blocked",
  "timeout",
  "deferred",
  "unavailable",
  "refused_private",
]);

/**
 * Asks the sidecar to probe `request.addresses`. Never throws: a network error, a non-200 answer, a malformed body or
 * no answer within `timeoutMs + 2000` ms gives every address the outcome `provider_unavailable`.
 * @param fetchImpl used for `{ url }` targets; a `{ fetcher }` target uses its own fetch
 */
export async function probeMailboxes(
  target: SidecarTarget,
  secret: string,
  request: SidecarProbeRequest,
  fetchImpl: typeof fetch = fetch,
): Promise<SidecarProbeResult> {
  const body = {
    domain: request.domain,
    mx_hosts: request.mxHosts.map(({ host, preference }) => ({ host, preference })),
    addresses: request.addresses,
    timeout_ms: request.timeoutMs,
    ...(request.catchAllProbe === false ? { catch_all_probe: false } : {}),
    ...(request.account ? { account: request.account } : {}),
  };
  const { timeoutMs } = request;
  const reply = await postToSidecar({ target, secret, path: "/v1/probe", body, timeoutMs, fetchImpl });
  if ("unreachable" in reply || reply.status !== 200) return allUnavailable(request.addresses);
  const { answer } = reply;
  if (!isWireResponse(answer, request.addresses)) return allUnavailable(request.addresses);
  const probe = answer.catch_all_answer;
  return {
    mxHost: answer.mx_host,
    catchAll: answer.catch_all,
    catchAllAnswer: probe && isWireAnswer(probe) ? camel(probe) : null,
    checkedAt: answer.checked_at,
    results: answer.results.map((r) => ({ address: r.address, ...camel(r) })),
  };
}

const camel = (r: Omit<WireResult, "address">) => ({
  outcome: r.outcome,
  smtpCode: r.smtp_code,
  smtpMessage: r.smtp_message,
  enhancedStatus: r.enhanced_status ?? null,
});

/** Every address `provider_unavailable`: what a probe answers when no sidecar could be asked. */
export function allUnavailable(addresses: string[]): SidecarProbeResult {
  const results = addresses.map((address) => ({
    address,
    outcome: "provider_unavailable" as const,
    smtpCode: null,
    smtpMessage: null,
    enhancedStatus: null,
  }));
  return { mxHost: null, catchAll: null, catchAllAnswer: null, checkedAt: new Date().toISOString(), results };
}

function isWireResponse(value: unknown, addresses: string[]): value is WireResponse {
  if (typeof value !== "object" || value === null) return false;
  const { mx_host, catch_all, checked_at, results } = value as Record<string, unknown>;
  if (!(mx_host === null || typeof mx_host === "string") || !(catch_all === null || typeof catch_all === "boolean"))
    return false;
  if (typeof checked_at !== "string" || !Array.isArray(results) || results.length !== addresses.length) return false;
  return results.every(
    (item: Partial<WireResult> | null, index) => item?.address === addresses[index] && isWireAnswer(item ?? {}),
  );
}

function isWireAnswer(item: Partial<WireResult>): boolean {
  const { outcome, smtp_code, smtp_message, enhanced_status } = item;
  return (
    SIDECAR_OUTCOMES.has(String(outcome)) &&
    (smtp_code === null || typeof smtp_code === "number") &&
    (smtp_message === null || typeof smtp_message === "string") &&
    (enhanced_status === undefined || enhanced_status === null || typeof enhanced_status === "string")
  );
}
