// POST /v1/deliver: one webhook attempt for the Worker, to the exact address the Worker checked. A Worker's fetch()
// resolves the host name again when it connects, so a name that answered a public address to the check can answer a
// private one to the connection (DNS rebinding). Here the socket is opened to the checked address itself, the guard
// judges that same address, and the host name only travels as the Host header and the TLS server name.
import http from "node:http";
import net, { isIP } from "node:net";
import tls from "node:tls";
import { refusalReason } from "./address-guard.mjs";

/** The largest webhook body relayed: the Worker's MAX_WEBHOOK_BODY_BYTES (src/platform/webhooks.ts), 8 MiB. */
export const MAX_DELIVER_BODY_BYTES = 8 * 1024 * 1024;
/**
 * The largest /v1/deliver request: the body travels as a JSON string, where escaping at most doubles it (a JSON body's
 * quotes and backslashes), plus the URL, headers and signature.
 */
export const MAX_DELIVER_REQUEST_BYTES = 2 * MAX_DELIVER_BODY_BYTES + 64 * 1024;
const TIMEOUT_MS = { min: 100, max: 30_000 };
/** Headers the Worker may set; Host, Content-Length and Connection are the relay's own. */
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
const OWN_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding"]);

/**
 * Validates a /v1/deliver body: {url (http or https), address (an IP literal), body (text), headers, timeout_ms}.
 * @param {unknown} value
 * @returns {{ ok: true, value: { url: URL, address: string, body: string, headers: Record<string, string>, timeoutMs:
 * number } } | { ok: false, error: string }}
 */
export function parseDeliverRequest(value) {
  if (typeof value !== "object" || value === null) return { ok: false, error: "body must be an object" };
  const { url, address, body, headers = {}, timeout_ms: timeoutMs } = /** @type {Record<string, unknown>} */ (value);
  let parsed;
  try {
    parsed = new URL(String(url));
  } catch {
    return { ok: false, error: "url must be an absolute URL" };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    return { ok: false, error: "url must be http or https" };
  if (typeof address !== "string" || !isIP(address)) return { ok: false, error: "address must be an IP address" };
  if (typeof body !== "string" || Buffer.byteLength(body) > MAX_DELIVER_BODY_BYTES)
    return { ok: false, error: `body must be text of at most ${MAX_DELIVER_BODY_BYTES} bytes` };
  if (typeof headers !== "object" || headers === null) return { ok: false, error: "headers must be an object" };
  const entries = Object.entries(headers);
  if (
    entries.some(
      ([name, v]) =>
        !HEADER_NAME.test(name) || OWN_HEADERS.has(name.toLowerCase()) || typeof v !== "string" || /[\r\n]/.test(v),
    )
  ) {
    return { ok: false, error: "headers must be plain name: value pairs" };
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < TIMEOUT_MS.min || timeoutMs > TIMEOUT_MS.max) {
    return { ok: false, error: `timeout_ms must be an integer from ${TIMEOUT_MS.min} to ${TIMEOUT_MS.max}` };
  }
  return { ok: true, value: { url: parsed, address, body, headers: Object.fromEntries(entries), timeoutMs } };
}

/**
 * Makes the attempt. Answers `{status}` with the receiver's HTTP status (its body is never read, redirects never
 * followed), or `{error, detail}`: `refused` (the guard), `timeout`, or `connection` (refused, reset, TLS failure).
 * @param {{ url: URL, address: string, body: string, headers: Record<string, string>, timeoutMs: number }} request
 * @param {{ allowLoopback: boolean, connect?: typeof net.connect }} settings
 * @returns {Promise<{ status: number } | { error: "refused" | "timeout" | "connection", detail: string }>}
 */
export function deliver(request, settings) {
  const refused = refusalReason(request.address, { allowLoopback: settings.allowLoopback });
  if (refused) return Promise.resolve({ error: "refused", detail: refused });
  const { url } = request;
  const https = url.protocol === "https:";
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || (https ? 443 : 80));
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const dial = settings.connect ?? net.connect;
    const createConnection = () => {
      const socket = dial({ host: request.address, port });
      // The certificate must name the host the URL names, whatever address it was reached at.
      return https
        ? tls.connect({ socket, servername: isIP(hostname) ? undefined : hostname, host: hostname })
        : socket;
    };
    const outgoing = http.request({
      method: "POST",
      path: `${url.pathname}${url.search}`,
      headers: {
        ...request.headers,
        Host: url.host,
        "Content-Length": String(Buffer.byteLength(request.body)),
        Connection: "close",
      },
      // No agent: a request with its own createConnection opens exactly that socket (an agent would dial by name).
      createConnection,
    });
    const timer = setTimeout(() => {
      finish({ error: "timeout", detail: `no answer within ${request.timeoutMs} ms` });
      outgoing.destroy();
    }, request.timeoutMs);
    outgoing.on("response", (response) => {
      finish({ status: response.statusCode ?? 0 });
      response.destroy();
    });
    outgoing.on("error", (error) => finish({ error: "connection", detail: error.message }));
    outgoing.end(request.body);
  });
}
