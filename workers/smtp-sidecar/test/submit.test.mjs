// POST /v1/submit: customer mail handed to the operator's relay, byte for byte, with 5xx permanent and 4xx temporary.
import { describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import { mailTransport } from "../../../src/platform/mail-transport.ts";
import { MAX_SUBMIT_BYTES } from "../submit.mjs";
import { closedAfterEach, nowSeconds, SECRET, signLikeWorker, startSidecar } from "./helpers.mjs";

const cleanups = closedAfterEach();

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

/** A message of exactly `bytes` bytes: headers, then base64-style lines of 76 characters and CR LF (RFC 2045). */
function messageOf(bytes) {
  const head = "From: mail@verify.test\r\nTo: ada@example.com\r\nSubject: big\r\n\r\n";
  const line = `${"QUJD".repeat(19)}\r\n`;
  const body = line.repeat(Math.floor((bytes - head.length) / line.length));
  const rest = bytes - head.length - body.length;
  return `${head}${body}${"A".repeat(Math.max(0, rest - 2))}\r\n`;
}

describe("message size through the Worker's transport (src/platform/mail-transport.ts)", () => {
  it("submits a message of exactly the limit (its request larger) and refuses one byte more for good", async () => {
    const relay = await startRelay();
    const sidecar = await startSidecar({ relay: { host: "127.0.0.1", port: relay.port, secure: false } });
    cleanups.push(sidecar.close);
    const transport = mailTransport({
      MAIL_TRANSPORT: "smtp",
      SMTP_SIDECAR_URL: sidecar.url,
      SMTP_SIDECAR_SECRET: SECRET,
    });
    const raw = messageOf(MAX_SUBMIT_BYTES);
    expect(Buffer.byteLength(raw)).toBe(MAX_SUBMIT_BYTES);
    expect(JSON.stringify(raw).length).toBeGreaterThan(MAX_SUBMIT_BYTES);
    const envelope = { from: "mail@verify.test", to: "ada@example.com" };
    expect(await transport.send({ ...envelope, raw })).toEqual({ sent: true, detail: expect.stringMatching(/^250/) });
    expect(relay.received).toHaveLength(1);
    expect(relay.received[0].raw === raw).toBe(true);

    expect(await transport.send({ ...envelope, raw: messageOf(MAX_SUBMIT_BYTES + 1) })).toEqual({
      sent: false,
      permanent: true,
      messageRefused: true,
      detail: `mail relay refused the message (raw must be a message of at most ${MAX_SUBMIT_BYTES} bytes)`,
    });
    expect(relay.received).toHaveLength(1);
  });
});
