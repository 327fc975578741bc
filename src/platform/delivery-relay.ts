import { postToSidecar, type SidecarTarget } from "./sidecar-request";

/**
 * Client for the sidecar's `POST /v1/deliver` (workers/smtp-sidecar/deliver.mjs): one webhook attempt made by the
 * sidecar to the exact address the Worker checked, signed like probe requests (X-Sidecar-Timestamp,
 * X-Sidecar-Signature). A Worker's fetch() resolves the host name itself when it connects, so the address it reaches is
 * not necessarily the one the SSRF guard judged; the sidecar connects to the judged address and sends the name as Host
 * and TLS server name.
 */
export interface RelayRequest {
  url: string;
  /** The checked address to connect to. */
  address: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * The receiver's HTTP status, or why there was none: `rejected` when the relay itself turned the request down (413 for
 * a body over its limit, 400 for one it cannot read), nothing sent.
 */
export type RelayOutcome =
  | { status: number }
  | { error: "refused" | "timeout" | "connection" | "rejected"; detail: string };

const isOutcome = (value: unknown): value is RelayOutcome =>
  typeof value === "object" &&
  value !== null &&
  (typeof (value as { status?: unknown }).status === "number" ||
    (["refused", "timeout", "connection"].includes(String((value as { error?: unknown }).error)) &&
      typeof (value as { detail?: unknown }).detail === "string"));

/** The relay's own words for a refused request (its `error` field), bounded; they never name a receiver's address. */
function rejection(answer: unknown): string {
  const said = (answer as { error?: unknown } | null)?.error;
  return `the delivery relay refused the request (${typeof said === "string" ? said.slice(0, 200) : "no reason"})`;
}

/** Asks the sidecar to make the attempt; a sidecar that cannot be reached or answers badly is a connection failure. */
export async function relayDelivery(
  target: SidecarTarget,
  secret: string,
  request: RelayRequest,
): Promise<RelayOutcome> {
  const body = {
    url: request.url,
    address: request.address,
    body: request.body,
    headers: request.headers,
    timeout_ms: request.timeoutMs,
  };
  const reply = await postToSidecar({ target, secret, path: "/v1/deliver", body, timeoutMs: request.timeoutMs });
  if ("unreachable" in reply)
    return { error: "connection", detail: `delivery relay unreachable (${reply.unreachable})` };
  const { status, answer } = reply;
  if (status >= 200 && status < 300 && isOutcome(answer)) return answer;
  if (status === 413 || status === 400) return { error: "rejected", detail: rejection(answer) };
  return { error: "connection", detail: `delivery relay answered ${status}` };
}
