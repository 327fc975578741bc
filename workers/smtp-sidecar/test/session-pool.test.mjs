// Kept SMTP sessions (session-pool.mjs) as probes see them: per domain and MX address, at most `maxActive` at once,
// and at most `maxPerAddress` per MX address; kept idle for the next probe, ended with QUIT.
import { describe, expect, it } from "vitest";
import { createSessionPool, POOL_DEFAULTS } from "../session-pool.mjs";
import {
  closedAfterEach,
  eventually,
  politeReply,
  postProbe,
  probeBody,
  startRawServer,
  startScriptedSmtp,
  startSidecar,
  startSmtpServer,
} from "./helpers.mjs";

const cleanups = closedAfterEach();

/** Every RCPT is answered after 150 ms unless told otherwise, so probes sent together overlap. */
async function setup(sessions, rcptDelayMs = 150) {
  const smtp = await startSmtpServer({ rcptDelayMs });
  const sidecar = await startSidecar({ smtpPort: smtp.port, sessions });
  cleanups.push(smtp.close, sidecar.close);
  return { smtp, sidecar };
}

const probeOf = (url, local, domain = "example.test", overrides = {}) =>
  postProbe(url, probeBody([`${local}@${domain}`], { domain, ...overrides }));

describe("kept SMTP sessions", () => {
  it("never opens more than maxActive sessions to one domain, and hands a finished one to the next probe", async () => {
    const { smtp, sidecar } = await setup({ maxActive: 2, idleMs: 200 });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => probeOf(sidecar.url, `user${i}`)));
    expect(answers.map((a) => a.body.results[0].outcome)).toEqual(Array(6).fill("accepted"));
    expect(smtp.stats.peakOpen).toBe(2);
    expect(smtp.stats.sessions).toBe(2);
    // Six transactions, each its own MAIL FROM, in the two sessions.
    expect(smtp.stats.mailFrom).toHaveLength(6);
    await eventually(() => smtp.stats.closed === 2);
  });

  it("holds at most 5 sessions at once to one destination by default, Postfix's initial concurrency", async () => {
    expect(POOL_DEFAULTS.maxActive).toBe(5);
    const { smtp, sidecar } = await setup({}, 300);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => probeOf(sidecar.url, `user${i}`)));
    expect(answers.every((a) => a.body.results[0].outcome === "accepted")).toBe(true);
    expect(smtp.stats.peakOpen).toBe(5);
    expect(smtp.stats.sessions).toBe(5);
  });

  it("holds at most 10 sessions at once to one MX address, however many domains it hosts", async () => {
    expect(POOL_DEFAULTS.maxPerAddress).toBe(10);
    // Concurrent requests reach the sidecar in any order, and which probes dial depends on it (two of one domain among
    // the first ten leave another domain a session to open later), so the order is made: one probe per domain holds
    // the ten slots, its RCPTs held back, before the other twenty queue behind them. Those twenty leave the catch-all
    // test out (as a list's later calls do): one asking it would first wait for the reply its domain's probe is
    // getting (catch-all.mjs), not for a session.
    const gate = Promise.withResolvers();
    const smtp = await startSmtpServer({ rcptDelayMs: 300, rcptGate: gate.promise });
    const sidecar = await startSidecar({ smtpPort: smtp.port });
    cleanups.push(smtp.close, sidecar.close);
    const probeAt = (i, overrides) => probeOf(sidecar.url, `user${i}`, `domain${i % 10}.test`, overrides);
    const first = Array.from({ length: 10 }, (_, i) => probeAt(i));
    await eventually(() => sidecar.sessions().active === 10, 5_000);
    const rest = Array.from({ length: 20 }, (_, i) => probeAt(10 + i, { catch_all_probe: false }));
    await eventually(() => sidecar.sessions().waiting === 20, 5_000);
    gate.resolve();
    const answers = await Promise.all([...first, ...rest]);
    expect(answers.every((a) => a.body.results[0].outcome === "accepted")).toBe(true);
    expect(smtp.stats.peakOpen).toBe(10);
    expect(smtp.stats.sessions).toBe(10);
  });

  it("gives an earlier probe of another domain the next slot at a full MX address before a busy domain", async () => {
    // busy.test fills the address's two slots; quiet.test's probe queues first, then twelve more of busy.test. A probe
    // takes one RCPT, 600 ms (the catch-all test is left out, as a list's later calls do: probes at one domain asking
    // it would first wait for one another's reply, catch-all.mjs, not for a session). Were the freed sessions handed
    // on within busy.test, quiet.test would wait seven rounds, past its 2.5 s deadline; its turn comes after the first
    // (~1.2 s).
    const gate = Promise.withResolvers();
    const smtp = await startSmtpServer({ rcptDelayMs: 600, rcptGate: gate.promise });
    const sidecar = await startSidecar({ smtpPort: smtp.port, sessions: { maxActive: 2, maxPerAddress: 2 } });
    cleanups.push(smtp.close, sidecar.close);
    const busy = (i) => probeOf(sidecar.url, `user${i}`, "busy.test", { timeout_ms: 15_000, catch_all_probe: false });
    const first = [busy(0), busy(1)];
    await eventually(() => sidecar.sessions().active === 2, 5_000);
    const quiet = probeOf(sidecar.url, "early", "quiet.test", { timeout_ms: 2_500, catch_all_probe: false });
    await eventually(() => sidecar.sessions().waiting === 1, 5_000);
    const rest = Array.from({ length: 12 }, (_, i) => busy(2 + i));
    await eventually(() => sidecar.sessions().waiting === 13, 5_000);
    gate.resolve();
    expect((await quiet).body.results[0]).toMatchObject({ outcome: "accepted" });
    const answers = await Promise.all([...first, ...rest]);
    expect(answers.every((a) => a.body.results[0].outcome === "accepted")).toBe(true);
    expect(smtp.stats.peakOpen).toBe(2);
  });

  it("keeps a lone probe's session for the next single lookup, then ends it with QUIT", async () => {
    const { smtp, sidecar } = await setup({ idleMs: 300 }, 0);
    await probeOf(sidecar.url, "alice");
    await probeOf(sidecar.url, "bob");
    expect(smtp.stats.sessions).toBe(1);
    expect(smtp.stats.mailFrom).toHaveLength(2);
    await eventually(() => smtp.stats.closed === 1);
    await probeOf(sidecar.url, "carol");
    expect(smtp.stats.sessions).toBe(2);
  });

  it("does not share sessions between domains, even at the same MX address", async () => {
    const { smtp, sidecar } = await setup({ maxActive: 1 });
    const answers = await Promise.all([
      probeOf(sidecar.url, "a", "one.test"),
      probeOf(sidecar.url, "b", "two.test"),
      probeOf(sidecar.url, "c", "one.test"),
    ]);
    expect(answers.map((a) => a.body.results[0].outcome)).toEqual(["accepted", "accepted", "accepted"]);
    expect(smtp.stats.peakOpen).toBe(2);
    expect(smtp.stats.sessions).toBe(2);
  });

  it("opens a new connection when a kept session no longer takes MAIL FROM, and answers from it", async () => {
    // Per connection: its second MAIL FROM (a kept session's next transaction) is dropped; RCPTs on the first
    // connection answer after 200 ms, so the second probe is surely waiting for the session when it is kept.
    const smtp = await startRawServer((socket) => {
      const connection = { mailFroms: 0, buffered: "" };
      const first = smtp.stats.connections === 1;
      socket.write("220 scripted ESMTP\r\n");
      socket.on("data", (chunk) => {
        connection.buffered += chunk.toString("latin1");
        let newline;
        while ((newline = connection.buffered.indexOf("\r\n")) !== -1) {
          const line = connection.buffered.slice(0, newline);
          connection.buffered = connection.buffered.slice(newline + 2);
          if (line.startsWith("MAIL") && ++connection.mailFroms === 2) return socket.destroy();
          if (line.startsWith("RCPT")) setTimeout(() => socket.write("250 ok\r\n"), first ? 200 : 0);
          else socket.write(`${line.startsWith("MAIL") ? "250 ok" : politeReply(line)}\r\n`);
        }
      });
    });
    const sidecar = await startSidecar({ smtpPort: smtp.port, sessions: { maxActive: 1 } });
    cleanups.push(smtp.close, sidecar.close);
    const answers = await Promise.all([probeOf(sidecar.url, "alice"), probeOf(sidecar.url, "bob")]);
    expect(answers.map((a) => a.body.results[0].outcome)).toEqual(["accepted", "accepted"]);
    expect(smtp.stats.connections).toBe(2);
  });

  it("answers timeout, within its deadline, a probe that waited for a session that never came free", async () => {
    const smtp = await startScriptedSmtp((line) => (line.startsWith("RCPT") ? null : politeReply(line)));
    const sidecar = await startSidecar({ smtpPort: smtp.port, sessions: { maxActive: 1 } });
    cleanups.push(smtp.close, sidecar.close);
    const started = Date.now();
    const holder = probeOf(sidecar.url, "alice", "example.test", { timeout_ms: 4000 });
    // The holder's RCPT is on the wire before the waiter is sent: sent together, either could reach the sidecar first.
    await eventually(() => smtp.stats.received.includes("RCPT TO"), 3_000);
    const waiter = probeOf(sidecar.url, "bob", "example.test", { timeout_ms: 2000 }).then((answer) => ({
      answer,
      elapsed: Date.now() - started,
    }));
    const { answer, elapsed } = await waiter;
    expect(answer.body.results[0]).toMatchObject({ outcome: "timeout", smtp_code: null });
    // Its own deadline, not the session holder's (4 s), ended the wait.
    expect(elapsed).toBeLessThan(4000);
    await holder;
    // The waiter never dialled: its deadline passed while it waited for the slot.
    expect(smtp.stats.connections).toBe(1);
  });
});

/** A connected session as the pool sees it; `quits` counts its QUIT. */
function stubSession() {
  const session = { failed: false, hasPendingReplies: false, transactions: 1, openedAt: Date.now(), quits: 0 };
  return Object.assign(session, { quit: async () => void (session.quits += 1) });
}

// The pool alone, its slots counted synchronously: which probe dials, waits or reuses must not depend on the order in
// which concurrent requests reach it.
describe("session pool slots", () => {
  const far = () => Date.now() + 5_000;

  it("lets a probe with room at its domain and MX address dial while another domain's probe waits there", async () => {
    const pool = createSessionPool({ maxActive: 1 });
    expect(await pool.acquire("one.test|10.0.0.1", far())).toBeNull();
    const queued = pool.acquire("one.test|10.0.0.1", far());
    const other = pool.acquire("two.test|10.0.0.1", far());
    expect(pool.stats()).toMatchObject({ active: 2, waiting: 1 });
    expect(await other).toBeNull();
    pool.release("one.test|10.0.0.1", null, { clean: false });
    expect(await queued).toBeNull();
    expect(pool.stats()).toMatchObject({ active: 2, waiting: 0 });
  });

  it("keeps another domain's idle session while a probe waits for its own domain only", async () => {
    const pool = createSessionPool({ maxActive: 1 });
    const kept = stubSession();
    expect(await pool.acquire("two.test|10.0.0.1", far())).toBeNull();
    pool.release("two.test|10.0.0.1", kept, { clean: true });
    expect(await pool.acquire("one.test|10.0.0.1", far())).toBeNull();
    const queued = pool.acquire("one.test|10.0.0.1", far());
    expect(pool.stats()).toMatchObject({ idle: 1, waiting: 1 });
    expect(await pool.acquire("two.test|10.0.0.1", far())).toBe(kept);
    expect(kept.quits).toBe(0);
    pool.release("one.test|10.0.0.1", null, { clean: false });
    expect(await queued).toBeNull();
  });

  it("ends an idle session of another domain for a probe that waits for room at the full MX address", async () => {
    const pool = createSessionPool({ maxActive: 1, maxPerAddress: 2 });
    const kept = stubSession();
    expect(await pool.acquire("two.test|10.0.0.1", far())).toBeNull();
    pool.release("two.test|10.0.0.1", kept, { clean: true });
    expect(await pool.acquire("one.test|10.0.0.1", far())).toBeNull();
    // The address holds two (one kept idle): three.test waits, and the kept session gives its slot up.
    expect(await pool.acquire("three.test|10.0.0.1", far())).toBeNull();
    expect(kept.quits).toBe(1);
    expect(pool.stats()).toMatchObject({ active: 2, idle: 0, waiting: 0 });
  });

  // A freed session at a full MX address goes to the oldest probe waiting there: a domain whose probes keep coming must
  // not hold the address's slots while an earlier probe of another domain waits out its deadline.
  it("ends a freed session for an older waiter of another domain instead of handing it to its own domain", async () => {
    const pool = createSessionPool({ maxActive: 1, maxPerAddress: 2 });
    expect(await pool.acquire("one.test|10.0.0.1", far())).toBeNull();
    expect(await pool.acquire("two.test|10.0.0.1", far())).toBeNull();
    const first = pool.acquire("three.test|10.0.0.1", far()).then((got) => ({ domain: "three", got }));
    const later = pool.acquire("one.test|10.0.0.1", far()).then((got) => ({ domain: "one", got }));
    expect(pool.stats()).toMatchObject({ active: 2, waiting: 2 });
    const freed = stubSession();
    pool.release("one.test|10.0.0.1", freed, { clean: true });
    // three.test dials in the slot the QUIT frees; one.test waits on, no session of one.test is reused meanwhile.
    expect(await Promise.race([first, later])).toEqual({ domain: "three", got: null });
    expect(freed.quits).toBe(1);
    expect(pool.stats()).toMatchObject({ active: 2, waiting: 1 });
    pool.release("three.test|10.0.0.1", stubSession(), { clean: true });
    expect(await later).toEqual({ domain: "one", got: null });
    expect(pool.stats()).toMatchObject({ active: 2, idle: 0, waiting: 0 });
  });

  it("still hands a freed session to its own domain when older waiters wait only for their own domain", async () => {
    const pool = createSessionPool({ maxActive: 1, maxPerAddress: 3 });
    for (const domain of ["one", "two", "three"])
      expect(await pool.acquire(`${domain}.test|10.0.0.1`, far())).toBeNull();
    // two.test waits for its own session first: a slot of one.test freed at the address would not let it dial.
    const own = pool.acquire("two.test|10.0.0.1", far());
    const same = pool.acquire("one.test|10.0.0.1", far());
    const freed = stubSession();
    pool.release("one.test|10.0.0.1", freed, { clean: true });
    expect(await same).toBe(freed);
    expect(freed.quits).toBe(0);
    pool.release("two.test|10.0.0.1", null, { clean: false });
    expect(await own).toBeNull();
  });

  it("hands a freed session to its own domain when the older waiter's own session in use will come to it", async () => {
    // Ending it would only churn connections: two.test's waiter takes two.test's session when that one is done.
    const pool = createSessionPool({ maxActive: 2, maxPerAddress: 2 });
    expect(await pool.acquire("one.test|10.0.0.1", far())).toBeNull();
    expect(await pool.acquire("two.test|10.0.0.1", far())).toBeNull();
    const other = pool.acquire("two.test|10.0.0.1", far());
    const same = pool.acquire("one.test|10.0.0.1", far());
    const freed = stubSession();
    pool.release("one.test|10.0.0.1", freed, { clean: true });
    expect(await same).toBe(freed);
    expect(freed.quits).toBe(0);
    const second = stubSession();
    pool.release("two.test|10.0.0.1", second, { clean: true });
    expect(await other).toBe(second);
  });

  it("hands a freed session to its own domain when the older waiter's slot is already freeing", async () => {
    const pool = createSessionPool({ maxActive: 2, maxPerAddress: 3 });
    expect(await pool.acquire("one.test|10.0.0.1", far())).toBeNull();
    expect(await pool.acquire("one.test|10.0.0.1", far())).toBeNull();
    expect(await pool.acquire("two.test|10.0.0.1", far())).toBeNull();
    const other = pool.acquire("three.test|10.0.0.1", far());
    const same = pool.acquire("one.test|10.0.0.1", far());
    let hangUp;
    const failed = Object.assign(stubSession(), {
      failed: true,
      quit: () => new Promise((resolve) => (hangUp = resolve)),
    });
    // two.test's broken session ends: its slot, once the server hung up, is three.test's turn.
    pool.release("two.test|10.0.0.1", failed, { clean: true });
    const freed = stubSession();
    pool.release("one.test|10.0.0.1", freed, { clean: true });
    expect(await same).toBe(freed);
    hangUp();
    expect(await other).toBeNull();
    expect(pool.stats()).toMatchObject({ active: 3, waiting: 0 });
  });
});
