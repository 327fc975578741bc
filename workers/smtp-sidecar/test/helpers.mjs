// Loopback stand-ins for the outside world: a real SMTP server (smtp-server), raw TCP servers that misbehave, and the
// sidecar itself started in-process.
import { webcrypto } from "node:crypto";
import net from "node:net";
import { SMTPServer } from "smtp-server";
import { afterEach } from "vitest";
import { createSidecar } from "../server.mjs";

export const SECRET = "test-sidecar-secret-0123456789";

/**
 * A real SMTP server on a free loopback port. `rcpt(address, session)` returns null to accept or `[code, message]` to
 * refuse. `stats` counts sessions (and the most open at once, `peakOpen`), every RCPT seen and the refusals of each
 * session (`refusedPerSession`); `stats.dataCalls` must stay 0. `rcptDelayMs` holds every RCPT reply that long, so
 * probes sent together overlap; `rcptGate` (a promise) holds them until it settles, then that long.
 */
export async function startSmtpServer({ rcpt = () => null, rcptDelayMs = 0, rcptGate, ...options } = {}) {
  const stats = { sessions: 0, peakOpen: 0, rcpts: [], mailFrom: [], dataCalls: 0, closed: 0 };
  stats.refusedPerSession = {};
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    disableReverseLookup: true,
    logger: false,
    ...options,
    onConnect(_session, callback) {
      stats.sessions += 1;
      stats.peakOpen = Math.max(stats.peakOpen, stats.sessions - stats.closed);
      callback();
    },
    onClose() {
      stats.closed += 1;
    },
    onMailFrom(address, _session, callback) {
      stats.mailFrom.push(address.address);
      callback();
    },
    onRcptTo(address, session, callback) {
      stats.rcpts.push(address.address);
      const refusal = rcpt(address.address, session);
      if (refusal) stats.refusedPerSession[session.id] = (stats.refusedPerSession[session.id] ?? 0) + 1;
      const answer = () =>
        callback(refusal ? Object.assign(new Error(refusal[1]), { responseCode: refusal[0] }) : undefined);
      const delayed = () => (rcptDelayMs ? setTimeout(answer, rcptDelayMs) : answer());
      if (rcptGate) rcptGate.then(delayed);
      else delayed();
    },
    onData(stream, _session, callback) {
      stats.dataCalls += 1;
      stream.resume();
      callback(new Error("DATA must never be sent"));
    },
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: server.server.address().port, stats, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * A raw TCP server on loopback (a free port unless `port` is given); `onSocket(socket)` scripts the misbehaviour.
 * Counts connections and keeps everything received.
 */
export async function startRawServer(onSocket, { host = "127.0.0.1", port = 0 } = {}) {
  const sockets = new Set();
  const stats = { connections: 0, received: "" };
  const server = net.createServer((socket) => {
    stats.connections += 1;
    sockets.add(socket);
    socket.on("data", (chunk) => (stats.received += chunk.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  return {
    port: server.address().port,
    stats,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(resolve);
      }),
  };
}

/**
 * A hand-written SMTP server: sends `greeting`, then answers each command line with `reply(line)`: a string (CRLF is
 * added), `null` to stay silent, or `"DROP"` to destroy the connection.
 */
export function startScriptedSmtp(reply, { greeting = "220 scripted ESMTP", ...listen } = {}) {
  return startRawServer((socket) => {
    let buffered = "";
    socket.write(`${greeting}\r\n`);
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      let newline;
      while ((newline = buffered.indexOf("\r\n")) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 2);
        const answer = reply(line);
        if (answer === "DROP") return socket.destroy();
        if (answer !== null) socket.write(`${answer}\r\n`);
      }
    });
  }, listen);
}

/** Replies of a well-behaved server for everything but RCPT, for scripted servers. */
export function politeReply(line) {
  const verb = line.slice(0, 4).toUpperCase();
  if (verb === "QUIT") return "221 bye";
  if (verb === "EHLO" || verb === "HELO" || verb === "MAIL" || verb === "RSET") return "250 ok";
  return "502 not implemented";
}

/** A port on loopback that refuses connections: bound once for a free number, then closed. */
export async function refusedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Pacing that never holds a test's probe back: tests of other behaviours ask many refused recipients of one loopback
 * address in a second. Tests of the pacing itself pass `pacing` (PACING_DEFAULTS, or shortened windows).
 */
export const UNPACED = Object.freeze({ refusals: 1_000_000, connects: 1_000_000 });

/**
 * The sidecar in-process, loopback MX allowed unless the test says otherwise; `dials` lists every IP it connects to.
 */
export async function startSidecar(config = {}) {
  const dials = [];
  const sidecar = createSidecar({
    secret: SECRET,
    port: 0,
    allowLoopback: true,
    log: () => {},
    connect: (options) => {
      dials.push(options.host);
      return net.connect(options);
    },
    ...config,
    pacing: { ...UNPACED, ...config.pacing },
  });
  await sidecar.listen();
  return { url: sidecar.url, dials, sessions: () => sidecar.sessions(), close: () => sidecar.close() };
}

/**
 * Signs exactly as src/platform/smtp-sidecar-client.ts does (Web Crypto HMAC-SHA256 over `${timestamp}.${rawBody}`,
 * lowercase hex), so these tests also pin the wire format the Worker depends on.
 */
export async function signLikeWorker(secret, timestamp, rawBody) {
  const encoder = new TextEncoder();
  const key = await webcrypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await webcrypto.subtle.sign("HMAC", key, encoder.encode(`${timestamp}.${rawBody}`));
  return Array.from(new Uint8Array(mac), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** POSTs a probe body (object or raw string), signed unless told otherwise. Returns `{ status, body }`. */
export async function postProbe(url, payload, { secret = SECRET, timestamp = nowSeconds(), signature } = {}) {
  const rawBody = typeof payload === "string" ? payload : JSON.stringify(payload);
  const response = await fetch(`${url}/v1/probe`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-sidecar-timestamp": String(timestamp),
      "x-sidecar-signature": signature ?? (await signLikeWorker(secret, timestamp, rawBody)),
    },
    body: rawBody,
  });
  return { status: response.status, body: await response.json() };
}

/** A probe body for `addresses` at example.test with one loopback MX unless `mx_hosts` is given. */
export function probeBody(addresses, overrides = {}) {
  return {
    domain: "example.test",
    mx_hosts: [{ host: "127.0.0.1", preference: 10 }],
    addresses,
    timeout_ms: 5000,
    ...overrides,
  };
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Resolves after `predicate()` is true (polling), for counters a server updates after the client has moved on. */
export async function eventually(predicate, timeoutMs = 1000) {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Close functions the file's tests push, run newest first after each test (call it once, at the file's top level). */
export function closedAfterEach() {
  const cleanups = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()();
  });
  return cleanups;
}
