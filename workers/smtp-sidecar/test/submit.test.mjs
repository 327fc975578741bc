// POST /v1/submit: customer mail handed to the operator's relay, byte for byte, with 5xx permanent and 4xx temporary.
import { afterEach, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import { nowSeconds, SECRET, signLikeWorker, startSidecar } from "./helpers.mjs";

const cleanups = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()();
});

/** A relay that keeps every message's bytes; `rcpt` refuses with [code, text]. */
async function startRelay(rcpt = () => null) {
  const received = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    disableReverseLookup: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = rcpt(address.address);
      callback(refusal ? Object.assign(new Error(refusal[1]), { responseCode: refusal[0] }) : undefined);
    },
    onData(stream, session, callback) {
      const chunks = [];
      stream.on("data", (c) => chunks.push(c));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: server.server.address().port, received };
}

async function post(url, body, secret = SECRET) {
  const raw = JSON.stringify(body);
  const timestamp = nowSeconds();
  const response = await fetch(`${url}/v1/submit`, {
    method: "POST",
    body: raw,
    headers: {
      "content-type": "application/json",
      "x-sidecar-timestamp": timestamp,
      "x-sidecar-signature": await signLikeWorker(secret, timestamp, raw),
    },
  });
  return { status: response.status, body: await response.json() };
}

const RAW =
  "From: mail@verify.test\r\nTo: ada@example.com\r\nSubject: hi\r\nMessage-ID: <msg_1@verify.test>\r\n\r\nline " +
  "one\r\n.leading dot\r\n";
const request = (to = "ada@example.com") => ({ from: "mail@verify.test", to, raw: RAW, timeout_ms: 5000 });

describe("POST /v1/submit", () => {
  it("submits the message to the relay unchanged, with the envelope asked for", async () => {
    const relay = await startRelay();
    const sidecar = await startSidecar({ relay: { host: "127.0.0.1", port: relay.port, secure: false } });
    cleanups.push(sidecar.close);
    const { status, body } = await post(sidecar.url, request());
    expect(status).toBe(200);
    expect(body).toEqual({ sent: true, response: expect.stringMatching(/^250/) });
    expect(relay.received).toEqual([{ from: "mail@verify.test", to: ["ada@example.com"], raw: RAW }]);
  });

  it("answers a 550 as permanent and a 451 as temporary", async () => {
    const relay = await startRelay((to) =>
      to.startsWith("gone@") ? [550, "5.1.1 no such user"] : [451, "4.2.1 busy"],
    );
    const sidecar = await startSidecar({ relay: { host: "127.0.0.1", port: relay.port, secure: false } });
    cleanups.push(sidecar.close);
    expect((await post(sidecar.url, request("gone@example.com"))).body).toEqual({
      sent: false,
      permanent: true,
      detail: expect.stringContaining("550"),
    });
    expect((await post(sidecar.url, request("busy@example.com"))).body).toEqual({
      sent: false,
      permanent: false,
      detail: expect.stringContaining("451"),
    });
    expect(relay.received).toEqual([]);
  });

  it("without a relay answers a temporary failure; bad input is 400 and a bad signature 401", async () => {
    const sidecar = await startSidecar();
    cleanups.push(sidecar.close);
    expect((await post(sidecar.url, request())).body).toEqual({
      sent: false,
      permanent: false,
      detail: "no SMTP relay configured (SMTP_RELAY_HOST)",
    });
    expect((await post(sidecar.url, { ...request(), to: "a@b\r\nRCPT TO:<x@y>" })).status).toBe(400);
    expect((await post(sidecar.url, { ...request(), raw: "" })).status).toBe(400);
    expect((await post(sidecar.url, request(), "wrong-secret-0123456789")).status).toBe(401);
  });
});
