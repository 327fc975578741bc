// @ts-check
// The local stand-ins for the internet that bench/email.mjs points the Worker and the sidecar at. Plain .mjs mirrors of
// test/fixtures/{doh,rdap,mail}.ts (same wire formats and answers; the bench does not import the tests' files, which
// change with the tests), plus what the bench needs on top:
//
//   - zones given as a function (every lookup can use a domain nobody has asked about yet, so no cache answers it)
//   - a timeline of every DNS query, RDAP request and SMTP connection (performance.now() of this process, the same
//     clock the load generator uses), to show where a lookup's time goes
//   - an SMTP latency proxy: a TCP relay in front of smtp-server that holds every server->client write for `delayMs`
//     before passing it on (client->server bytes pass at once). Every reply is delayed, the 220 greeting, EHLO, MAIL
//     FROM, each RCPT, RSET and QUIT included, like a mail server `delayMs` away (per reply, not cumulative: writes
//     keep their order).
import { createServer } from "node:http";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { SMTPServer } from "smtp-server";
import { freePort } from "../../scripts/lib/local.mjs";

const TYPE_CODES = { A: 1, AAAA: 28, MX: 15, TXT: 16 };

const listen = async (server) => {
  const port = await freePort();
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve(/** @type {import("node:net").AddressInfo} */ (server.address()).port);
    });
  });
};

const closeServer = (server) =>
  new Promise((resolve) => {
    server.close(() => resolve(undefined));
    server.closeAllConnections?.();
  });

/**
 * DNS over HTTPS, JSON API (`GET ?name=&type=`, application/dns-json), as test/fixtures/doh.ts: `zone(name)` returns
 * `{MX?, A?, AAAA?, TXT?, servfail?}` or undefined (NXDOMAIN); every answer is delayed by `latencyMs`.
 * `queries` records `{name, type, at, answeredAt}`.
 */
export async function startDoh(zone, latencyMs = 0) {
  const queries = [];
  const server = createServer(async (req, res) => {
    const query = { at: performance.now(), answeredAt: null, name: "", type: "" };
    queries.push(query);
    const url = new URL(req.url ?? "/", "http://localhost");
    const name = (url.searchParams.get("name") ?? "").toLowerCase().replace(/\.$/, "");
    const type = (url.searchParams.get("type") ?? "A").toUpperCase();
    Object.assign(query, { name, type });
    if (latencyMs) await sleep(latencyMs);
    const entry = zone(name);
    const status = entry?.servfail ? 2 : entry ? 0 : 3;
    const records = entry && !entry.servfail ? (entry[type] ?? []) : [];
    res.writeHead(200, { "Content-Type": "application/dns-json" });
    res.end(
      JSON.stringify({
        Status: status,
        Question: [{ name, type: TYPE_CODES[type] }],
        Answer: records.map((data) => ({ name, type: TYPE_CODES[type], TTL: 300, data })),
      }),
    );
    query.answeredAt = performance.now();
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/dns-query`, queries, close: () => closeServer(server) };
}

/**
 * RDAP (RFC 9083 domain objects), as test/fixtures/rdap.ts: `registeredOn(name)` gives YYYY-MM-DD or undefined (404).
 */
export async function startRdap(registeredOn) {
  const requests = [];
  const server = createServer((req, res) => {
    const name = /^\/domain\/([^/?]+)/.exec(req.url ?? "")?.[1]?.toLowerCase() ?? "";
    requests.push({ at: performance.now(), name });
    const date = registeredOn(name);
    if (!date) {
      res.writeHead(404, { "Content-Type": "application/rdap+json" });
      res.end(JSON.stringify({ errorCode: 404, title: "Not Found" }));
      return;
    }
    res.writeHead(200, { "Content-Type": "application/rdap+json" });
    res.end(
      JSON.stringify({
        objectClassName: "domain",
        ldhName: name,
        rdapConformance: ["rdap_level_0"],
        events: [
          { eventAction: "registration", eventDate: `${date}T12:00:00Z` },
          { eventAction: "expiration", eventDate: "2030-01-01T00:00:00Z" },
        ],
      }),
    );
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/`, requests, close: () => closeServer(server) };
}

/**
 * A real SMTP server (smtp-server, configured as test/fixtures/mail.ts) answering RCPT with `accepts(local, domain)`:
 * 250 when true, 550 5.1.1 otherwise; DATA is refused and counted. Then the latency proxy in front of it: dial
 * `port` (the proxy) to get the delayed server, `directPort` for the undelayed one.
 * `connections` records `{at, greetedAt, closedAt, replies, rcpts}` per proxied connection. smtp-server itself holds
 * the greeting for 100 ms after accepting a connection (its "early talker" check, not configurable); `greetedAt - at`
 * shows that pause.
 */
export async function startSmtp(accepts, delayMs = 0) {
  let dataCalls = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    disableReverseLookup: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      const email = address.address.toLowerCase();
      const at = email.lastIndexOf("@");
      if (accepts(email.slice(0, at), email.slice(at + 1))) return callback();
      return callback(Object.assign(new Error("5.1.1 User unknown"), { responseCode: 550 }));
    },
    onData(_stream, _session, callback) {
      dataCalls += 1;
      callback(new Error("DATA must never be sent"));
    },
  });
  const smtpPort = await freePort();
  const directPort = await new Promise((resolve, reject) => {
    smtp.once("error", reject);
    smtp.listen(smtpPort, "127.0.0.1", () =>
      resolve(/** @type {import("node:net").AddressInfo} */ (smtp.server.address()).port),
    );
  });

  const connections = [];
  const sockets = new Set();
  const proxy = net.createServer((client) => {
    const record = { at: performance.now(), greetedAt: null, closedAt: null, replies: 0, rcpts: 0 };
    connections.push(record);
    const upstream = net.connect({ host: "127.0.0.1", port: directPort });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("data", (chunk) => {
      record.rcpts += (chunk.toString("latin1").match(/^RCPT TO:/gim) ?? []).length;
      upstream.write(chunk);
    });
    client.on("end", () => upstream.end());
    client.on("close", () => {
      record.closedAt ??= performance.now();
      upstream.destroy();
    });
    // Same delay for every chunk: timers of equal duration fire in the order they were set, so the order holds.
    upstream.on("data", (chunk) => {
      record.greetedAt ??= performance.now(); // the greeting left smtp-server (before our delay)
      record.replies += (chunk.toString("latin1").match(/^\d{3}(?: .*)?\r?$/gm) ?? []).length;
      setTimeout(() => client.destroyed || client.write(chunk), delayMs);
    });
    upstream.on("end", () => setTimeout(() => client.end(), delayMs));
    upstream.on("close", () => setTimeout(() => client.destroy(), delayMs + 1));
  });
  const port = await listen(proxy);

  return {
    port,
    directPort,
    connections,
    get dataCalls() {
      return dataCalls;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(() => resolve(undefined)));
      await new Promise((resolve) => smtp.close(() => resolve(undefined)));
    },
  };
}
