// A 421 (or a refused greeting or MAIL FROM) is read by whom it is about (rcpt-reply.mjs `refusalOf`): a refusal of
// the prober backs the MX address off (`blocked`); a server busy for everyone is this probe's `unavailable` and leaves
// the address's state alone, so the next probe dials as usual. The texts are real servers' own.
import { describe, expect, it } from "vitest";
import { PACING_DEFAULTS } from "../mx-pacing.mjs";
import { rcptOutcome, refusalOf } from "../rcpt-reply.mjs";
import { closedAfterEach, politeReply, postProbe, probeBody, startScriptedSmtp, startSidecar } from "./helpers.mjs";

const cleanups = closedAfterEach();

const SERVER = [
  [421, "4.3.2 All server ports are busy"], // Postfix postscreen, post-queue limit or no smtpd process free
  [421, "4.3.2 No system resources"], // Postfix postscreen
  [421, "4.3.0 mx.example.test Server configuration problem"], // Postfix smtpd
  [421, "4.4.2 mx.example.test Error: timeout exceeded"], // Postfix smtpd
  [421, "mx.example.test: Too many concurrent SMTP connections; please try again later"], // Exim smtp_accept_max
  [421, "mx.example.test: Too much load; please try again later"], // Exim smtp_load_reserve
  [421, "Too many concurrent SMTP connections"], // Amazon SES inbound
  [421, "4.3.0 Temporary System Problem.  Try again later (10). - gsmtp"], // Gmail
  [421, "4.3.2 Service not available, closing transmission channel"], // Microsoft
  [421, "Service not available, closing transmission channel"], // RFC 5321's own text, no code
  [451, "4.3.0 Error: queue file write error"], // Postfix, at MAIL FROM
  // Exchange's MaxInboundConnection, every client together
  [421, "4.3.2 The maximum number of concurrent server connections has exceeded a limit, closing transmission channel"],
];
const CLIENT = [
  [421, "4.7.0 mx.example.test Error: too many connections from 192.0.2.1"], // Postfix anvil, per client
  [421, "4.7.0 mx.example.test Error: too many errors"], // Postfix smtpd_hard_error_limit
  [421, "mx.example.test: Too many concurrent SMTP connections from this IP address; please try again later"], // Exim
  [421, "4.3.2 Connection rate limit exceeded."], // sendmail ClientRate: 4.3.2, yet per client
  // Exchange's MaxInboundConnectionPerSource: 4.3.2, yet per client (2007-2010, then later releases)
  [421, "4.3.2 The maximum number of concurrent connections has exceeded a limit, closing transmission channel"],
  [421, "4.3.2 The maximum number of concurrent server connections has exceeded a per-source limit, closing"],
  [421, "4.7.0 [192.0.2.1 15] Our system has detected an unusual rate of unsolicited mail originating from your IP"],
  [421, "4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints"],
  [421, "4.7.66 Too many concurrent SMTP connections"], // a policy code decides, whatever the words
  [421, "closing connection"], // nothing said: the careful reading backs off
  [554, "5.3.2 Service unavailable"], // a permanent refusal at the greeting
];

describe("whom a closing or opening refusal is about", () => {
  it.each(SERVER)("%i %s: the server, for everyone", (code, message) => {
    expect(refusalOf({ code, message })).toBe("server");
  });
  it.each(CLIENT)("%i %s: the prober", (code, message) => {
    expect(refusalOf({ code, message })).toBe("client");
  });
  it("a 421 to RCPT is unavailable for a busy server, blocked for the client", () => {
    expect(rcptOutcome({ code: 421, message: "4.3.2 All server ports are busy" })).toBe("unavailable");
    expect(rcptOutcome({ code: 421, message: "4.7.0 Error: too many connections from 192.0.2.1" })).toBe("blocked");
  });
});

async function sidecarFor(server) {
  const sidecar = await startSidecar({ smtpPort: server.port, pacing: PACING_DEFAULTS });
  cleanups.push(server.close, sidecar.close);
  return sidecar;
}

const one = (sidecar, local) => postProbe(sidecar.url, probeBody([`${local}@example.test`]));

describe("a busy server is not backed off; a refusal of the prober is", () => {
  it("greeting 421 4.3.2 All server ports are busy: unavailable, and the next probe dials again", async () => {
    const server = await startScriptedSmtp(politeReply, { greeting: "421 4.3.2 All server ports are busy" });
    const sidecar = await sidecarFor(server);
    const { body } = await one(sidecar, "a");
    expect(body.results[0]).toEqual({
      address: "a@example.test",
      outcome: "unavailable",
      smtp_code: 421,
      smtp_message: "4.3.2 All server ports are busy",
      enhanced_status: "4.3.2",
    });
    expect(body.catch_all).toBeNull();
    const { body: next } = await one(sidecar, "b");
    expect(next.results[0]).toMatchObject({ outcome: "unavailable", smtp_code: 421 });
    expect(server.stats.connections).toBe(2);
  });

  it("greeting 421 4.7.0 too many connections from <ip>: blocked, and the next probe is not dialled", async () => {
    const greeting = "421 4.7.0 mx.example.test Error: too many connections from 127.0.0.1";
    const server = await startScriptedSmtp(politeReply, { greeting });
    const sidecar = await sidecarFor(server);
    const { body } = await one(sidecar, "a");
    expect(body.results[0]).toMatchObject({ outcome: "blocked", smtp_code: 421, enhanced_status: "4.7.0" });
    const { body: next } = await one(sidecar, "b");
    expect(next.results[0]).toMatchObject({ outcome: "blocked", smtp_code: 421 });
    expect(server.stats.connections).toBe(1);
  });

  it("RCPT 421 4.4.2 timeout exceeded: the list is unavailable, the next probe dials and is answered", async () => {
    let rcpts = 0;
    const server = await startScriptedSmtp((line) => {
      if (!line.startsWith("RCPT")) return politeReply(line);
      rcpts += 1;
      return rcpts === 1 ? "421 4.4.2 mx.example.test Error: timeout exceeded" : "250 2.1.5 Ok";
    });
    const sidecar = await sidecarFor(server);
    const addresses = ["a@example.test", "b@example.test"];
    const { body } = await postProbe(sidecar.url, probeBody(addresses, { catch_all_probe: false }));
    expect(body.results.map((r) => [r.outcome, r.smtp_code])).toEqual([
      ["unavailable", 421],
      ["unavailable", 421],
    ]);
    const { body: next } = await postProbe(sidecar.url, probeBody(["c@example.test"], { catch_all_probe: false }));
    expect(next.results[0]).toMatchObject({ outcome: "accepted", smtp_code: 250 });
    expect(server.stats.connections).toBe(2);
  });

  it("MAIL FROM 451 4.3.0 queue file write error: unavailable, no back-off", async () => {
    const server = await startScriptedSmtp((line) =>
      line.startsWith("MAIL") ? "451 4.3.0 Error: queue file write error" : politeReply(line),
    );
    const sidecar = await sidecarFor(server);
    expect((await one(sidecar, "a")).body.results[0]).toMatchObject({ outcome: "unavailable", smtp_code: 451 });
    expect((await one(sidecar, "b")).body.results[0]).toMatchObject({ outcome: "unavailable", smtp_code: 451 });
    expect(server.stats.connections).toBe(2);
  });
});
