// The catch-all question at one domain and MX address (catch-all.mjs): lookups that run at the same time share one
// RCPT of the random address and its reply, so a burst of single lookups costs a small server one refused recipient
// instead of one each (fail2ban's stock jail allows 4 in 10 minutes); a reply that never came is not shared.
import { describe, expect, it } from "vitest";
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

/** The sidecar with production pacing in front of `server`. */
async function sidecarFor(server) {
  const sidecar = await startSidecar({ smtpPort: server.port, pacing: PACING_DEFAULTS });
  cleanups.push(server.close, sidecar.close);
  return sidecar;
}

const single = (url, local, overrides = {}) => postProbe(url, probeBody([`${local}@example.test`], overrides));
/** What the server got that was not one of the test's own addresses: the random addresses of the catch-all test. */
const randoms = (rcpts) => rcpts.filter((r) => !/^(user\d+|alice)@/.test(r));

describe("lookups at one domain and MX address at the same time", () => {
  it("send one RCPT of the random address in all, and each gets its reply", async () => {
    // Every RCPT reply is held 200 ms, so the four lookups, sent together, all ask before the first reply is in.
    const smtp = await startSmtpServer({
      rcpt: (address) => (address.startsWith("user") ? null : [550, "5.1.1 User unknown"]),
      rcptDelayMs: 200,
    });
    const sidecar = await sidecarFor(smtp);
    const answers = await Promise.all([0, 1, 2, 3].map((i) => single(sidecar.url, `user${i}`)));
    expect(randoms(smtp.stats.rcpts)).toHaveLength(1);
    expect(Object.values(smtp.stats.refusedPerSession).reduce((n, c) => n + c, 0)).toBe(1);
    for (const { body } of answers) {
      expect(body).toMatchObject({ catch_all: false, results: [{ outcome: "accepted" }] });
      expect(body.catch_all_answer).toEqual({
        outcome: "no_mailbox",
        smtp_code: 550,
        smtp_message: "5.1.1 User unknown",
        enhanced_status: "5.1.1",
      });
    }
    // The verdict is remembered as before: a later lookup asks no random address at all.
    const later = await single(sidecar.url, "user9");
    expect(later.body).toMatchObject({ catch_all: false, catch_all_answer: null });
    expect(randoms(smtp.stats.rcpts)).toHaveLength(1);
  });

  it("share a greylisted reply too, which the server would have given each of them", async () => {
    const smtp = await startSmtpServer({
      rcpt: (address) => (address.startsWith("user") ? null : [450, "4.2.0 Recipient address rejected: Greylisted"]),
      rcptDelayMs: 200,
    });
    const sidecar = await sidecarFor(smtp);
    const answers = await Promise.all([0, 1, 2].map((i) => single(sidecar.url, `user${i}`)));
    expect(randoms(smtp.stats.rcpts)).toHaveLength(1);
    for (const { body } of answers) {
      expect(body).toMatchObject({ catch_all: null, results: [{ outcome: "accepted" }] });
      expect(body.catch_all_answer).toMatchObject({ outcome: "greylisted", smtp_code: 450 });
    }
  });

  it("do not share a reply that never came: one whose own deadline cut it short leaves the question open", async () => {
    // The first RCPT of the random address is never answered; asked again, it is refused as no such user.
    let randomAsked = 0;
    const server = await startScriptedSmtp((line) => {
      if (!line.startsWith("RCPT")) return politeReply(line);
      if (/<user\d+@/.test(line)) return "250 2.1.5 Ok";
      randomAsked += 1;
      return randomAsked === 1 ? null : "550 5.1.1 User unknown";
    });
    const sidecar = await sidecarFor(server);
    const short = single(sidecar.url, "user1", { timeout_ms: 2000 });
    await eventually(() => randomAsked === 1, 2000);
    const long = single(sidecar.url, "user2", { timeout_ms: 6000 });
    const first = (await short).body;
    expect(first).toMatchObject({ catch_all: null, results: [{ outcome: "timeout" }] });
    expect(first.catch_all_answer).toMatchObject({ outcome: "timeout", smtp_code: null });
    // The second lookup waited for the first one's question, then asked the same random address itself.
    const second = (await long).body;
    expect(second).toMatchObject({ catch_all: false, results: [{ outcome: "accepted" }] });
    expect(second.catch_all_answer).toMatchObject({ outcome: "no_mailbox", smtp_code: 550 });
    expect(randomAsked).toBe(2);
    const asked = [...server.stats.received.matchAll(/RCPT TO:<([^>]+)>/g)].map((m) => m[1]);
    expect(new Set(randoms(asked)).size).toBe(1);
  });

  it("a lookup whose deadline passes while it waits answers timeout, without asking", async () => {
    // The server holds its replies until the second lookup has answered.
    const gate = Promise.withResolvers();
    const smtp = await startSmtpServer({ rcptGate: gate.promise });
    const sidecar = await sidecarFor(smtp);
    const long = single(sidecar.url, "user1", { timeout_ms: 6000 });
    await eventually(() => smtp.stats.rcpts.length === 1, 2000);
    const started = Date.now();
    const { body } = await single(sidecar.url, "user2", { timeout_ms: 2000 });
    gate.resolve();
    // Its own deadline, not the other lookup's, with slack for a loaded machine.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(body).toMatchObject({ catch_all: null, results: [{ outcome: "timeout", smtp_code: null }] });
    expect(body.catch_all_answer).toMatchObject({ outcome: "timeout", smtp_code: null });
    expect((await long).body).toMatchObject({ catch_all: true, results: [{ outcome: "accepted" }] });
    expect(randoms(smtp.stats.rcpts)).toHaveLength(1);
    expect(smtp.stats.rcpts).not.toContain("user2@example.test");
  });
});
