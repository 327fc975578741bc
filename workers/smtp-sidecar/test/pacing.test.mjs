// The prober as real mail servers and their stock defences see it (mx-pacing.mjs, converse.mjs): refused recipients
// paced per MX address below fail2ban's jail, connections paced, Postfix's error limits never met, refusals of the
// prober backed off, the catch-all verdict remembered, free uncertain answers bounded per account.
import { describe, expect, it } from "vitest";
import { startSmtp } from "../../../test/fixtures/smtp.ts";
import { PACING_DEFAULTS } from "../mx-pacing.mjs";
import {
  closedAfterEach,
  eventually,
  politeReply,
  postProbe,
  probeBody,
  startScriptedSmtp,
  startSidecar,
  startSmtpServer,
} from "./helpers.mjs";

const cleanups = closedAfterEach();

/** The sidecar with production pacing (or `pacing`), in front of `server`. */
async function sidecarFor(server, pacing = PACING_DEFAULTS, sessions = {}) {
  const sidecar = await startSidecar({ smtpPort: server.port, pacing, sessions });
  cleanups.push(server.close, sidecar.close);
  return sidecar;
}

const known = (address) => (address.startsWith("alice@") ? null : [550, "5.1.1 User unknown"]);
const refusals = (smtp) => Object.values(smtp.stats.refusedPerSession).reduce((n, count) => n + count, 0);
const single = (url, address, overrides = {}) =>
  postProbe(url, probeBody([address], { domain: address.slice(address.indexOf("@") + 1), ...overrides }));

describe("fail2ban's stock postfix jail (5 refusals in 10 minutes) is never reached", () => {
  it("a stream of 20 single lookups of a real mailbox sends one refused RCPT in all, in one kept session", async () => {
    expect(PACING_DEFAULTS).toMatchObject({ refusals: 4, refusalWindowMs: 600_000, catchAllMs: 3_600_000 });
    const smtp = await startSmtpServer({ rcpt: known });
    const sidecar = await sidecarFor(smtp);
    for (let i = 0; i < 20; i += 1) {
      const { body } = await single(sidecar.url, "alice@example.test");
      expect(body).toMatchObject({ catch_all: false, results: [{ outcome: "accepted" }] });
    }
    // The random address was asked once; its verdict served the other 19 lookups.
    expect(refusals(smtp)).toBe(1);
    expect(smtp.stats.rcpts).toHaveLength(21);
    expect(smtp.stats.sessions).toBe(1);
  });

  it("single lookups at six domains of one MX address: four refusals, then nothing asked", async () => {
    const smtp = await startSmtpServer({ rcpt: known });
    const sidecar = await sidecarFor(smtp);
    const outcomes = [];
    for (let i = 0; i < 6; i += 1) {
      const { body } = await single(sidecar.url, `alice@domain${i}.test`);
      outcomes.push([body.catch_all, body.results[0].outcome]);
    }
    expect(outcomes).toEqual([
      [false, "accepted"],
      [false, "accepted"],
      [false, "accepted"],
      [false, "deferred"],
      [null, "deferred"],
      [null, "deferred"],
    ]);
    expect(refusals(smtp)).toBe(4);
    expect(smtp.stats.rcpts).toHaveLength(7);
  });

  it("full mailboxes (552, 452) are not counted: fail2ban's filter cannot match their codes", async () => {
    const rcpt = (address) =>
      address.startsWith("alice@")
        ? null
        : address.startsWith("full")
          ? [Number(address.slice(4, 7)), "5.2.2 Mailbox full"]
          : [550, "5.1.1 User unknown"];
    const smtp = await startSmtpServer({ rcpt });
    const sidecar = await sidecarFor(smtp);
    const fulls = Array.from({ length: 6 }, (_, i) => `full${i % 2 ? 452 : 552}x${i}@example.test`);
    const { body } = await postProbe(sidecar.url, probeBody(["alice@example.test", ...fulls, "nobody@example.test"]));
    // Only the random address and the unknown user count: nothing is held back.
    expect(body.results.map((r) => r.outcome)).not.toContain("deferred");
    expect(body.results.at(-1).outcome).toBe("no_mailbox");
  });

  it("a list with unknown users is answered until the fourth refusal; the rest deferred, saying until", async () => {
    const smtp = await startSmtpServer({ rcpt: known });
    const sidecar = await sidecarFor(smtp);
    const addresses = ["alice@example.test", ...Array.from({ length: 9 }, (_, i) => `nobody${i}@example.test`)];
    const { body } = await postProbe(sidecar.url, probeBody(addresses));
    expect(body.results.map((r) => r.outcome)).toEqual([
      "accepted",
      "no_mailbox",
      "no_mailbox",
      "no_mailbox",
      ...Array(6).fill("deferred"),
    ]);
    expect(body.results[9]).toMatchObject({ smtp_code: null, enhanced_status: null });
    expect(body.results[9].smtp_message).toMatch(/^not asked: .* until \d{4}-\d\d-\d\dT/);
    expect(refusals(smtp)).toBe(4);
  });
});

describe("Postfix's error limits (smtpd_soft_error_limit 10, smtpd_hard_error_limit 20)", () => {
  it("answers 50 addresses, 60 % unknown, in full, each session ending before the 10th error", async () => {
    // The stand-in of the Worker's tests: Postfix's error counting, 1 s sleeps from the 10th error, 421 at the 20th.
    const smtp = await startSmtp();
    const sidecar = await startSidecar({ smtpPort: smtp.port, pacing: { refusals: 1_000 } });
    cleanups.push(smtp.close, sidecar.close);
    const addresses = Array.from({ length: 50 }, (_, i) => `${i % 5 < 2 ? "ok" : "no"}-${i}@postfix.example`);
    const started = Date.now();
    const { body } = await postProbe(
      sidecar.url,
      probeBody(addresses, { domain: "postfix.example", timeout_ms: 10_000 }),
    );
    const outcomes = body.results.map((r) => r.outcome);
    expect(outcomes.filter((o) => o === "accepted")).toHaveLength(20);
    expect(outcomes.filter((o) => o === "no_mailbox")).toHaveLength(30);
    expect(Date.now() - started).toBeLessThan(10_000);
    const stats = smtp.stats();
    expect(stats).toMatchObject({ slowReplies: 0, hardLimits: 0, maxErrors: 8 });
    // 31 refusals (the random address's too) at 8 a session: 4 sessions, within 5 connections a minute.
    expect(stats.sessions).toHaveLength(4);
  });

  it("on 421 closes, backs off the MX address, and answers the next probe blocked without dialling", async () => {
    const server = await startScriptedSmtp((line) => {
      if (line.startsWith("RCPT")) return "421 4.7.0 mx.example.test Error: too many errors";
      return politeReply(line);
    });
    const sidecar = await sidecarFor(server);
    const first = await postProbe(sidecar.url, probeBody(["a@example.test", "b@example.test"]));
    expect(first.body.results.map((r) => [r.outcome, r.smtp_code])).toEqual([
      ["blocked", 421],
      ["blocked", 421],
    ]);
    expect(first.body.catch_all).toBeNull();
    const second = await postProbe(sidecar.url, probeBody(["c@example.test"]));
    expect(second.body.results[0]).toMatchObject({ outcome: "blocked", smtp_code: 421 });
    expect(server.stats.connections).toBe(1);
  });
});

describe("per-client limits and connection pacing", () => {
  it("a per-client rate limit (450 4.7.1 too many recipients from <ip>) is blocked: no reconnect storm", async () => {
    let rcpts = 0;
    const server = await startScriptedSmtp((line) => {
      if (!line.startsWith("RCPT")) return politeReply(line);
      rcpts += 1;
      return rcpts <= 2 ? "250 2.1.5 ok" : "450 4.7.1 Error: too many recipients from 127.0.0.1";
    });
    const sidecar = await sidecarFor(server);
    const addresses = Array.from({ length: 10 }, (_, i) => `user${i}@example.test`);
    const { body } = await postProbe(sidecar.url, probeBody(addresses, { catch_all_probe: false }));
    expect(body.results.map((r) => r.outcome)).toEqual(["accepted", "accepted", ...Array(8).fill("blocked")]);
    expect(body.results[2]).toMatchObject({ smtp_code: 450, enhanced_status: "4.7.1" });
    expect(server.stats.connections).toBe(1);
    await eventually(() => /QUIT\r\n$/.test(server.stats.received), 2000);
    await postProbe(sidecar.url, probeBody(["later@example.test"], { catch_all_probe: false }));
    expect(server.stats.connections).toBe(1);
  });

  it("paces connections per MX address; a turn past the deadline answers timeout, undialled", async () => {
    const smtp = await startSmtpServer({ rcpt: known });
    // One refusal a session and two connections a minute, so the third session would be a minute away.
    const sidecar = await sidecarFor(smtp, { ...PACING_DEFAULTS, refusals: 100, sessionErrors: 1, connects: 2 });
    const addresses = Array.from({ length: 4 }, (_, i) => `nobody${i}@example.test`);
    const started = Date.now();
    const { body } = await postProbe(sidecar.url, probeBody(addresses, { catch_all_probe: false, timeout_ms: 3000 }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(body.results.map((r) => r.outcome)).toEqual(["no_mailbox", "no_mailbox", "timeout", "timeout"]);
    expect(smtp.stats.sessions).toBe(2);
  });
});

describe("the catch-all verdict", () => {
  it("while the random address is greylisted, the same one is asked again, so greylisting learns it", async () => {
    const seen = new Set();
    // postgrey: an address's first RCPT is greylisted, later ones accepted (a catch-all behind greylisting).
    const smtp = await startSmtpServer({
      rcpt: (address) => {
        if (address.startsWith("alice@") || seen.has(address)) return null;
        seen.add(address);
        return [450, "4.2.0 Recipient address rejected: Greylisted"];
      },
    });
    const sidecar = await sidecarFor(smtp);
    const first = await single(sidecar.url, "alice@example.test");
    expect(first.body).toMatchObject({ catch_all: null, results: [{ outcome: "accepted" }] });
    expect(first.body.catch_all_answer).toMatchObject({ outcome: "greylisted", smtp_code: 450 });
    const second = await single(sidecar.url, "alice@example.test");
    expect(second.body).toMatchObject({ catch_all: true, catch_all_answer: { outcome: "accepted" } });
    const randoms = smtp.stats.rcpts.filter((r) => !r.startsWith("alice@"));
    expect(randoms).toHaveLength(2);
    expect(randoms[0]).toBe(randoms[1]);
  });
});

describe("free uncertain answers per account", () => {
  it("past the bound at an MX address, the account's probes get the last reply without asking", async () => {
    const smtp = await startSmtpServer({ rcpt: () => [451, "4.7.1 Greylisted, try again later"] });
    const sidecar = await sidecarFor(smtp, { ...PACING_DEFAULTS, freeUncertain: 2 });
    for (const local of ["a", "b"]) {
      const { body } = await single(sidecar.url, `${local}@example.test`, { account: "acc_one" });
      expect(body.results[0].outcome).toBe("greylisted");
    }
    const asked = smtp.stats.rcpts.length;
    const { body } = await single(sidecar.url, "c@example.test", { account: "acc_one" });
    expect(body.results[0]).toMatchObject({ outcome: "greylisted", smtp_code: 451 });
    expect(body.results[0].smtp_message).toMatch(/^not asked again: /);
    expect(smtp.stats.rcpts).toHaveLength(asked);
    await single(sidecar.url, "d@example.test", { account: "acc_two" });
    expect(smtp.stats.rcpts.length).toBeGreaterThan(asked);
  });
});
