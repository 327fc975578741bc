// POST /v1/deliver: the attempt goes to the address in the request, never to what the URL's name resolves to.
import http from "node:http";
import { describe, expect, it } from "vitest";
import { relayDelivery } from "../../../src/platform/delivery-relay.ts";
import { closedAfterEach, SECRET, startSidecar } from "./helpers.mjs";

const cleanups = closedAfterEach();

/** A loopback HTTP receiver recording each request's Host header and body, answering `status`. */
async function startReceiver(status = 204) {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ host: req.headers.host, path: req.url, body, signature: req.headers["x-service-signature-v2"] });
      res.writeHead(status);
      res.end("never read");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: server.address().port, seen };
}

async function setup(config = {}) {
  const sidecar = await startSidecar(config);
  cleanups.push(sidecar.close);
  const relay = (request) =>
    relayDelivery({ url: sidecar.url }, SECRET, { body: "{}", headers: {}, timeoutMs: 2_000, ...request });
  return { sidecar, relay };
}

describe("POST /v1/deliver", () => {
  it("connects to the given address, sends the URL's host as Host, and answers the receiver's status", async () => {
    const receiver = await startReceiver(204);
    const { sidecar, relay } = await setup();
    // hooks.invalid resolves nowhere: the attempt can only arrive because the sidecar dialled the address itself.
    const outcome = await relay({
      url: `http://hooks.invalid:${receiver.port}/in?x=1`,
      address: "127.0.0.1",
      body: '{"a":1}',
      headers: { "X-Service-Signature-V2": "t=1,v2=ab" },
    });
    expect(outcome).toEqual({ status: 204 });
    expect(receiver.seen).toEqual([
      { host: `hooks.invalid:${receiver.port}`, path: "/in?x=1", body: '{"a":1}', signature: "t=1,v2=ab" },
    ]);
    expect(sidecar.dials).toEqual(["127.0.0.1"]);
  });

  it("refuses a private address with its guard and dials nothing", async () => {
    const { sidecar, relay } = await setup({ allowLoopback: false });
    for (const address of ["127.0.0.1", "10.1.2.3", "::1", "169.254.169.254"]) {
      expect(await relay({ url: "https://hooks.example/", address })).toMatchObject({ error: "refused" });
    }
    expect(sidecar.dials).toEqual([]);
  });

  it("fails a TLS attempt whose server is not TLS as a connection failure", async () => {
    const receiver = await startReceiver();
    const { relay } = await setup();
    expect(await relay({ url: `https://hooks.example:${receiver.port}/`, address: "127.0.0.1" })).toMatchObject({
      error: "connection",
    });
  });

  it("answers 400 to a request without an IP address or with a header it sets itself, read as a refusal", async () => {
    const { relay } = await setup();
    expect(await relay({ url: "https://hooks.example/", address: "hooks.example" })).toEqual({
      error: "rejected",
      detail: "the delivery relay refused the request (address must be an IP address)",
    });
    expect(
      await relay({ url: "https://hooks.example/", address: "127.0.0.1", headers: { Host: "evil.example" } }),
    ).toEqual({
      error: "rejected",
      detail: "the delivery relay refused the request (headers must be plain name: value pairs)",
    });
  });
});
