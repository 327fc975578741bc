// The SMTP sidecar: an HTTP service that runs mailbox handshakes for the Worker, which cannot open port 25, and makes
// webhook attempts pinned to the address the Worker checked (deliver.mjs), which a Worker's fetch() cannot.
// `node server.mjs` (or `npm run sidecar` from the repo root) starts it from environment variables; tests import
// createSidecar() and run it in-process. See README.md.
import { realpathSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { verifyRequest } from "./auth.mjs";
import { deliver, MAX_DELIVER_REQUEST_BYTES, parseDeliverRequest } from "./deliver.mjs";
import { probe } from "./probe.mjs";
import { createRelayPools, MAX_SUBMIT_REQUEST_BYTES, parseSubmitRequest, submit } from "./submit.mjs";
import { isHostname, isSafeAddress, parseProbeRequest } from "./request-schema.mjs";
import { createDohResolver } from "./doh-resolver.mjs";
import { createDnsResolver } from "./targets.mjs";
import { createSessionPool } from "./session-pool.mjs";
import { createPacer } from "./mx-pacing.mjs";

const MAX_BODY_BYTES = 64 * 1024;
const MIN_SECRET_LENGTH = 16;

/**
 * @typedef {object} SidecarConfig
 * @property {string} secret shared HMAC secret (SIDECAR_SECRET), at least 16 characters
 * @property {number} [port] HTTP port (SIDECAR_PORT, default 8025; 0 picks a free one)
 * @property {string} [host] HTTP bind address (SIDECAR_HOST, default 127.0.0.1)
 * @property {number} [smtpPort] port dialled on every MX (SMTP_PORT, default 25)
 * @property {string} [heloName] EHLO/HELO name (SMTP_HELO_NAME, default verify.localhost)
 * @property {string} [mailFrom] MAIL FROM address (SMTP_MAIL_FROM, default probe@verify.localhost)
 * @property {boolean} [allowLoopback] allow loopback MX addresses (SIDECAR_ALLOW_LOOPBACK=1); development only
 * @property {string} [dohUrl] resolve MX host names over this DNS-over-HTTPS endpoint (SIDECAR_DOH_URL); development
 * only
 * @property {import("./targets.mjs").HostResolver} [resolver] A/AAAA resolver; defaults to node:dns
 * @property {typeof import("node:net").connect} [connect] socket factory; tests wrap it to count dials
 * @property {(message: string) => void} [log] error log; defaults to stderr
 * @property {import("./submit.mjs").RelayConfig} [relay] where /v1/submit hands customer mail (SMTP_RELAY_HOST, ...)
 * @property {Partial<import("./session-pool.mjs").PoolLimits>} [sessions] limits of the kept SMTP sessions; tests
 * shorten them
 * @property {Partial<import("./mx-pacing.mjs").PacingLimits>} [pacing] what each MX address is spared
 * (SMTP_PACE_REFUSALS, SMTP_PACE_WINDOW_S, SMTP_PACE_CONNECTS, SMTP_BACKOFF_S); tests and labs change them
 */

/**
 * Reads the sidecar's configuration from environment variables; throws with a readable message when it is unusable.
 * @param {NodeJS.ProcessEnv} env
 * @returns {SidecarConfig}
 */
export function configFromEnv(env) {
  return {
    secret: env.SIDECAR_SECRET ?? "",
    port: env.SIDECAR_PORT ? Number(env.SIDECAR_PORT) : 8025,
    host: env.SIDECAR_HOST || "127.0.0.1",
    smtpPort: env.SMTP_PORT ? Number(env.SMTP_PORT) : 25,
    heloName: env.SMTP_HELO_NAME || "verify.localhost",
    mailFrom: env.SMTP_MAIL_FROM || "probe@verify.localhost",
    allowLoopback: env.SIDECAR_ALLOW_LOOPBACK === "1",
    pacing: pacingFromEnv(env),
    dohUrl: env.SIDECAR_DOH_URL || undefined,
    relay: env.SMTP_RELAY_HOST
      ? {
          host: env.SMTP_RELAY_HOST,
          port: env.SMTP_RELAY_PORT ? Number(env.SMTP_RELAY_PORT) : 587,
          secure: env.SMTP_RELAY_SECURE === "1",
          user: env.SMTP_RELAY_USER || undefined,
          pass: env.SMTP_RELAY_PASS || undefined,
        }
      : undefined,
  };
}

/** Pacing limits set in the environment (whole numbers; seconds for the windows), defaults for the rest. */
function pacingFromEnv(env) {
  const pacing = {};
  const set = (name, key, scale = 1) => {
    if (!env[name]) return;
    const value = Number(env[name]);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
    pacing[key] = value * scale;
  };
  set("SMTP_PACE_REFUSALS", "refusals");
  set("SMTP_PACE_WINDOW_S", "refusalWindowMs", 1000);
  set("SMTP_PACE_CONNECTS", "connects");
  set("SMTP_PACE_PROVIDER_REFUSALS", "providerRefusals");
  set("SMTP_PACE_PROVIDER_CONNECTS", "providerConnects");
  set("SMTP_BACKOFF_S", "backoffMs", 1000);
  return pacing;
}

/**
 * Creates the HTTP service. `url` is known once `listen()` has resolved.
 * @param {SidecarConfig} config
 * @returns {{ listen(): Promise<string>, close(): Promise<void>,
 *   sessions(): ReturnType<import("./session-pool.mjs").SessionPool["stats"]>, readonly url: string }}
 */
export function createSidecar(config) {
  const settings = checkConfig(config);
  const server = http.createServer((request, response) => {
    handle(request, response, settings).catch((error) => {
      settings.log(`smtp-sidecar: unexpected error: ${error?.stack ?? error}`);
      if (!response.headersSent) sendJson(response, 500, { error: "internal error" });
      else response.destroy();
    });
  });
  let url = "";
  return {
    listen: () =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(settings.port, settings.host, () => {
          server.off("error", reject);
          const { address, port } = /** @type {import("node:net").AddressInfo} */ (server.address());
          url = `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
          resolve(url);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        settings.relayPools.close();
        settings.sessionPool.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    /** The session pool's slots now, kept sessions and waiting probes (session-pool.mjs `stats`). */
    sessions: () => settings.sessionPool.stats(),
    get url() {
      return url;
    },
  };
}

async function handle(request, response, settings) {
  const { pathname } = new URL(request.url ?? "/", "http://sidecar");
  if (pathname === "/healthz") {
    if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed(response, "GET, HEAD");
    response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    return response.end("ok");
  }
  if (pathname !== "/v1/probe" && pathname !== "/v1/deliver" && pathname !== "/v1/submit")
    return sendJson(response, 404, { error: "not found" });
  if (request.method !== "POST") return methodNotAllowed(response, "POST");

  // Each path reads what its largest valid request can be: a probe is small, a webhook body or a message is not.
  const maxBytes =
    { "/v1/submit": MAX_SUBMIT_REQUEST_BYTES, "/v1/deliver": MAX_DELIVER_REQUEST_BYTES }[pathname] ?? MAX_BODY_BYTES;
  const rawBody = await readBody(request, maxBytes);
  if (rawBody === null) return sendJson(response, 413, { error: `body larger than ${maxBytes} bytes` });
  const authError = verifyRequest({
    secret: settings.secret,
    timestamp: request.headers["x-sidecar-timestamp"],
    signature: request.headers["x-sidecar-signature"],
    rawBody,
  });
  if (authError) return sendJson(response, 401, { error: authError });

  let body;
  try {
    body = JSON.parse(rawBody.toString("utf8"));
  } catch {
    return sendJson(response, 400, { error: "body is not valid JSON" });
  }
  if (pathname === "/v1/submit") {
    const message = parseSubmitRequest(body);
    if (!message.ok) return sendJson(response, 400, { error: message.error });
    return sendJson(response, 200, await submit(message.value, settings.relay, settings.relayPools));
  }
  if (pathname === "/v1/deliver") {
    const delivery = parseDeliverRequest(body);
    if (!delivery.ok) return sendJson(response, 400, { error: delivery.error });
    return sendJson(response, 200, await deliver(delivery.value, settings));
  }
  const parsed = parseProbeRequest(body);
  if (!parsed.ok) return sendJson(response, 400, { error: parsed.error });
  return sendJson(response, 200, await probe(parsed.value, settings));
}

function checkConfig(config) {
  const settings = {
    port: 8025,
    host: "127.0.0.1",
    smtpPort: 25,
    heloName: "verify.localhost",
    mailFrom: "probe@verify.localhost",
    allowLoopback: false,
    log: (message) => console.error(message),
    ...Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined)),
  };
  settings.resolver ??= settings.dohUrl ? createDohResolver(settings.dohUrl) : createDnsResolver();
  if (typeof settings.secret !== "string" || settings.secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`SIDECAR_SECRET is required (at least ${MIN_SECRET_LENGTH} characters)`);
  }
  if (!isPort(settings.port, { allowZero: true })) throw new Error("SIDECAR_PORT must be a port number");
  if (!isPort(settings.smtpPort)) throw new Error("SMTP_PORT must be a port number");
  if (!isHostname(settings.heloName)) throw new Error("SMTP_HELO_NAME must be an LDH host name");
  if (!isSafeAddress(settings.mailFrom)) throw new Error("SMTP_MAIL_FROM must be a plain address");
  settings.allowLoopback = settings.allowLoopback === true;
  settings.relayPools = createRelayPools();
  settings.sessionPool = createSessionPool(settings.sessions);
  settings.pacer = createPacer(settings.pacing);
  return settings;
}

const isPort = (value, { allowZero = false } = {}) =>
  Number.isInteger(value) && value >= (allowZero ? 0 : 1) && value <= 65535;

function readBody(request, maxBytes) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on("data", (chunk) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    request.on("end", () => resolve(size <= maxBytes ? Buffer.concat(chunks) : null));
    request.on("error", reject);
  });
}

function sendJson(response, status, body) {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  response.end(JSON.stringify(body));
}

function methodNotAllowed(response, allow) {
  response.setHeader("allow", allow);
  sendJson(response, 405, { error: "method not allowed" });
}

function isEntryPoint() {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  let sidecar;
  try {
    sidecar = createSidecar(configFromEnv(process.env));
  } catch (error) {
    console.error(`smtp-sidecar: ${error.message}`);
    process.exit(1);
  }
  const url = await sidecar.listen();
  console.log(`smtp-sidecar listening on ${url}`);
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => sidecar.close().then(() => process.exit(0)));
}
