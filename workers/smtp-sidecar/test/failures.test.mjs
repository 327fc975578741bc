// Servers that stall, hang up or refuse us: the answers must be timeout / unavailable, never a guess.
import { describe, expect, it } from "vitest";
import {
  closedAfterEach,
  eventually,
  politeReply,
  postProbe,
  probeBody,
  refusedPort,
  startRawServer,
  startScriptedSmtp,
  startSidecar,
  startSmtpServer,
} from "./helpers.mjs";

const cleanups = closedAfterEach();

async function sidecarFor(server) {
  // Kept sessions end soon, so a test sees the QUIT that ends an idle one.
  const sidecar = await startSidecar({ smtpPort: server.port, sessions: { idleMs: 200 } });
  cleanups.push(server.close, sidecar.close);
  return sidecar;
}

const outcomes = (body) => body.results.map((result) => result.outcome);

describe("stalls", () => {
  it("a server that accepts the connection and never speaks: every address times out within timeout_ms", async () => {
    const sidecar = await sidecarFor(await startRawServer(() => {}));
    const started = Date.now();
    const { status, body } = await postProbe(
      sidecar.url,
      probeBody(["a@example.test", "b@example.test"], { timeout_ms: 2000 }),
    );
    const elapsed = Date.now() - started;
    expect(status).toBe(200);
    expect(outcomes(body)).toEqual(["timeout", "timeout"]);
    expect(body.results[0]).toMatchObject({ smtp_code: null, smtp_message: null });
    expect(body.catch_all).toBeNull();
    // Never before the deadline; and one deadline for the whole probe, not one per address (that would be 4,000 ms):
    // a bound on structure with a second of slack, not on the machine's speed.
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(2 * 2000);
  });

  it("a server that stops answering mid-RCPT: answers so far are kept, the rest time out", async () => {
    const sidecar = await sidecarFor(await stallingSmtp());
    const { body } = await postProbe(
      sidecar.url,
      probeBody(["fast@example.test", "slow@example.test", "later@example.test"], { timeout_ms: 2000 }),
    );
    expect(outcomes(body)).toEqual(["accepted", "timeout", "timeout"]);
    // The random address went first, so the catch-all verdict survived the stall.
    expect(body.catch_all).toBe(false);
  });

  it("says QUIT at the deadline instead of hanging up", async () => {
    const server = await stallingSmtp();
    const sidecar = await sidecarFor(server);
    await postProbe(sidecar.url, probeBody(["fast@example.test", "slow@example.test"], { timeout_ms: 2000 }));
    await eventually(() => /QUIT\r\n$/.test(server.stats.received), 2000);
    expect(server.stats.received).not.toMatch(/DATA/);
  });

  it("says QUIT when the reply to RSET is slow, and keeps the answers", async () => {
    const server = await startScriptedSmtp((line) => {
      if (line.startsWith("RSET")) return null;
      return line.startsWith("RCPT") ? "250 2.1.5 ok" : politeReply(line);
    });
    const sidecar = await sidecarFor(server);
    const { body } = await postProbe(sidecar.url, probeBody(["a@example.test"], { catch_all_probe: false }));
    expect(outcomes(body)).toEqual(["accepted"]);
    await eventually(() => /RSET\r\nQUIT\r\n$/.test(server.stats.received), 3000);
  });
});

/** Refuses the first RCPT (the random address), answers the second, then goes silent. */
function stallingSmtp() {
  let rcpts = 0;
  return startScriptedSmtp((line) => {
    if (!line.toUpperCase().startsWith("RCPT")) return politeReply(line);
    rcpts += 1;
    if (rcpts === 1) return "550 5.1.1 unknown";
    return rcpts === 2 ? "250 2.1.5 ok" : null;
  });
}

describe("dropped connections", () => {
  it("a server that hangs up right after its greeting: unavailable", async () => {
    const sidecar = await sidecarFor(await startRawServer((socket) => socket.end("220 hello\r\n")));
    const { body } = await postProbe(sidecar.url, probeBody(["a@example.test"]));
    expect(outcomes(body)).toEqual(["unavailable"]);
    expect(body.catch_all).toBeNull();
    expect(body.mx_host).toBe("127.0.0.1");
  });

  it(
    "a server that resets the connection mid-RCPT: the answered address is kept, the rest are " + "unavailable",
    async () => {
      let rcpts = 0;
      const server = await startScriptedSmtp((line) => {
        if (!line.toUpperCase().startsWith("RCPT")) return politeReply(line);
        rcpts += 1;
        return rcpts <= 2 ? "550 5.1.1 unknown" : "DROP";
      });
      const sidecar = await sidecarFor(server);
      const { body } = await postProbe(
        sidecar.url,
        probeBody(["gone@example.test", "b@example.test", "c@example.test"]),
      );
      expect(outcomes(body)).toEqual(["no_mailbox", "unavailable", "unavailable"]);
      expect(body.catch_all).toBe(false);
      expect(server.stats.connections).toBe(1);
    },
  );

  it("a first MX that drops before any RCPT answer: the next MX is used", async () => {
    const smtp = await startSmtpServer();
    const dropper = await startRawServer((socket) => socket.end("220 hello\r\n"), {
      host: "127.0.0.2",
      port: smtp.port,
    });
    cleanups.push(dropper.close);
    const sidecar = await sidecarFor(smtp);
    const mx_hosts = [
      { host: "127.0.0.2", preference: 1 },
      { host: "127.0.0.1", preference: 2 },
    ];
    const { body } = await postProbe(sidecar.url, probeBody(["a@example.test"], { mx_hosts }));
    expect(dropper.stats.connections).toBe(1);
    expect(body).toMatchObject({ mx_host: "127.0.0.1", catch_all: true, results: [{ outcome: "accepted" }] });
  });

  it("no MX accepting connections: unavailable", async () => {
    const sidecar = await startSidecar({ smtpPort: await refusedPort() });
    cleanups.push(sidecar.close);
    const mx_hosts = [
      { host: "127.0.0.2", preference: 1 },
      { host: "127.0.0.3", preference: 2 },
    ];
    const { body } = await postProbe(sidecar.url, probeBody(["a@example.test"], { mx_hosts }));
    expect(sidecar.dials).toEqual(["127.0.0.2", "127.0.0.3"]);
    expect(body.results).toEqual([
      { address: "a@example.test", outcome: "unavailable", smtp_code: null, smtp_message: null, enhanced_status: null },
    ]);
  });
});

describe("servers that refuse us before any RCPT", () => {
  it("a 554 greeting: blocked, with the server's reply", async () => {
    const server = await startScriptedSmtp(politeReply, { greeting: "554 5.7.1 no SMTP service for you" });
    const sidecar = await sidecarFor(server);
    const { body } = await postProbe(sidecar.url, probeBody(["a@example.test"]));
    expect(body.results[0]).toMatchObject({
      outcome: "blocked",
      smtp_code: 554,
      smtp_message: "5.7.1 no SMTP service for you",
    });
    expect(server.stats.received).not.toMatch(/RCPT/);
  });

  it("MAIL FROM refused: blocked, and no RCPT is sent", async () => {
    const server = await startScriptedSmtp((line) =>
      line.startsWith("MAIL") ? "550 5.7.1 sender rejected" : politeReply(line),
    );
    const sidecar = await sidecarFor(server);
    const { body } = await postProbe(sidecar.url, probeBody(["a@example.test"]));
    expect(body.results[0]).toMatchObject({ outcome: "blocked", smtp_code: 550 });
    expect(server.stats.received).not.toMatch(/RCPT/);
  });

  it("EHLO refused with 5xx: falls back to HELO and carries on", async () => {
    const server = await startScriptedSmtp((line) => {
      if (line.startsWith("EHLO")) return "502 5.5.2 EHLO not supported";
      if (line.startsWith("RCPT")) return line.includes("known@") ? "250 ok" : "550 no such user";
      return politeReply(line);
    });
    const sidecar = await sidecarFor(server);
    const { body } = await postProbe(sidecar.url, probeBody(["known@example.test"]));
    expect(server.stats.received).toMatch(
      /^EHLO verify\.localhost\r\nHELO verify\.localhost\r\nMAIL FROM:<probe@verify\.localhost>\r\n/,
    );
    expect(body).toMatchObject({ catch_all: false, results: [{ outcome: "accepted" }] });
    await eventually(() => /RSET\r\nQUIT\r\n$/.test(server.stats.received), 2000);
    expect(server.stats.received).not.toMatch(/DATA/);
  });
});
