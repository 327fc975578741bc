// The refusal budget under lookups running at the same time (mx-pacing.mjs `reserveRefusal`, converse.mjs): every
// RCPT reserves one refused recipient of its MX address's budget before it is sent, so lookups in flight together can
// never send more than the budget allows, and gives it back when the reply is not a refusal; a RCPT whose unit is held
// by one awaiting its reply waits for it rather than being held back. Counted at the server.
import { describe, expect, it } from "vitest";
import { createPacer, PACING_DEFAULTS } from "../mx-pacing.mjs";
import {
  closedAfterEach,
  politeReply,
  postProbe,
  probeBody,
  startScriptedSmtp,
  startSidecar,
  startSmtpServer,
} from "./helpers.mjs";

const cleanups = closedAfterEach();

async function sidecarFor(server) {
  const sidecar = await startSidecar({ smtpPort: server.port, pacing: PACING_DEFAULTS });
  cleanups.push(server.close, sidecar.close);
  return sidecar;
}

const known = (address) => (/^alice\d*@/.test(address) ? null : [550, "5.1.1 User unknown"]);
const refusals = (smtp) => Object.values(smtp.stats.refusedPerSession).reduce((n, count) => n + count, 0);
const outcomesOf = (responses) => responses.map(({ body }) => body.results[0].outcome).sort();

describe("lookups at the same time never overshoot an MX address's refused recipients", () => {
  it("3 refusals from a list, then 4 unknown users at once: 4 refusals in all at the server", async () => {
    // Every RCPT reply held 200 ms, so the four lookups are in flight together.
    const smtp = await startSmtpServer({ rcpt: known, rcptDelayMs: 200 });
    const sidecar = await sidecarFor(smtp);
    const list = await postProbe(
      sidecar.url,
      probeBody(["alice@example.test", "nobody0@example.test", "x@example.test"]),
    );
    expect(list.body.results.map((r) => r.outcome)).toEqual(["accepted", "no_mailbox", "no_mailbox"]);
    expect(refusals(smtp)).toBe(3);
    const singles = await Promise.all(
      [1, 2, 3, 4].map((i) => postProbe(sidecar.url, probeBody([`nobody${i}@example.test`]))),
    );
    expect(refusals(smtp)).toBe(4);
    expect(outcomesOf(singles)).toEqual(["deferred", "deferred", "deferred", "no_mailbox"]);
    expect(smtp.stats.rcpts).toHaveLength(5);
  });

  it("3 refusals, then 4 real mailboxes at once: the last unit passes from one to the next, all answered", async () => {
    const smtp = await startSmtpServer({ rcpt: known, rcptDelayMs: 200 });
    const sidecar = await sidecarFor(smtp);
    await postProbe(sidecar.url, probeBody(["alice@example.test", "nobody0@example.test", "x@example.test"]));
    const singles = await Promise.all(
      [1, 2, 3, 4].map((i) => postProbe(sidecar.url, probeBody([`alice${i}@example.test`]))),
    );
    expect(outcomesOf(singles)).toEqual(["accepted", "accepted", "accepted", "accepted"]);
    expect(refusals(smtp)).toBe(3);
    // Then the unit left still serves an unknown user, and only one.
    const after = await Promise.all([5, 6].map((i) => postProbe(sidecar.url, probeBody([`nobody${i}@example.test`]))));
    expect(outcomesOf(after)).toEqual(["deferred", "no_mailbox"]);
    expect(refusals(smtp)).toBe(4);
  });

  it("4 unknown users at once at a new domain share one random-address RCPT: 4 refusals in all", async () => {
    const smtp = await startSmtpServer({ rcpt: known, rcptDelayMs: 200 });
    const sidecar = await sidecarFor(smtp);
    const singles = await Promise.all(
      [0, 1, 2, 3].map((i) => postProbe(sidecar.url, probeBody([`nobody${i}@example.test`]))),
    );
    const randoms = smtp.stats.rcpts.filter((r) => !r.startsWith("nobody"));
    expect(randoms).toHaveLength(1);
    expect(refusals(smtp)).toBe(4);
    expect(singles.map(({ body }) => body.catch_all)).toEqual([false, false, false, false]);
    expect(outcomesOf(singles)).toEqual(["deferred", "no_mailbox", "no_mailbox", "no_mailbox"]);
  });

  /**
   * A server whose RCPT reply the local part decides (nobody: unknown user, grey: greylisted, drop: the connection
   * dropped, silent: no reply, else accepted), the sidecar in front of it, and one address asked at a time.
   */
  async function scripted() {
    const server = await startScriptedSmtp((line) => {
      if (!line.startsWith("RCPT")) return politeReply(line);
      if (line.includes("nobody")) return "550 5.1.1 User unknown";
      if (line.includes("grey")) return "450 4.2.0 Recipient address rejected: Greylisted";
      if (line.includes("drop")) return "DROP";
      if (line.includes("silent")) return null;
      return "250 2.1.5 ok";
    });
    const sidecar = await sidecarFor(server);
    const ask = async (address, timeout_ms = 5000) => {
      const { body } = await postProbe(sidecar.url, probeBody([address], { catch_all_probe: false, timeout_ms }));
      return body.results[0].outcome;
    };
    return { server, sidecar, ask };
  }

  it("a reply that is no refusal gives its unit back: accepted, greylisted", async () => {
    const { server, sidecar, ask } = await scripted();
    const list = await postProbe(
      sidecar.url,
      probeBody(["nobody0@example.test", "nobody1@example.test", "nobody2@example.test"], { catch_all_probe: false }),
    );
    expect(list.body.results.map((r) => r.outcome)).toEqual(["no_mailbox", "no_mailbox", "no_mailbox"]);
    expect(await ask("alice@example.test")).toBe("accepted");
    expect(await ask("grey@example.test")).toBe("greylisted");
    // The one unit left is still there for an unknown user; after it, nothing more is asked.
    expect(await ask("nobody3@example.test")).toBe("no_mailbox");
    expect(await ask("nobody4@example.test")).toBe("deferred");
    const rcpts = server.stats.received.match(/^RCPT TO:<[^>]*>/gm) ?? [];
    expect(rcpts.filter((r) => r.includes("nobody"))).toHaveLength(4);
  });

  it("an RCPT that got no reply keeps its unit: the server may have refused and logged it all the same", async () => {
    const { ask } = await scripted();
    expect(await ask("drop@example.test")).toBe("unavailable");
    expect(await ask("silent@example.test", 2000)).toBe("timeout");
    expect(await ask("nobody0@example.test")).toBe("no_mailbox");
    expect(await ask("nobody1@example.test")).toBe("no_mailbox");
    // Two units went to the RCPTs without a reply, two to the refusals: the budget of 4 is spent.
    expect(await ask("nobody2@example.test")).toBe("deferred");
  });
});

describe("the pacer's reservations (mx-pacing.mjs)", () => {
  const ip = "192.0.2.7";
  const soon = () => Date.now() + 1000;

  it("reserves up to the budget, counts a refused one, gives back the rest, settles once", async () => {
    const pacer = createPacer();
    const held = await Promise.all([1, 2, 3, 4].map(() => pacer.reserveRefusal(ip, soon())));
    expect(held.every((settle) => typeof settle === "function")).toBe(true);
    held[0](true);
    held[0](false);
    held[1](false);
    held[1](true);
    expect(pacer.refusalsLeft(ip)).toBe(3);
    held[2](false);
    held[3](true);
    expect(pacer.refusalsLeft(ip)).toBe(2);
  });

  it("a unit held by a RCPT awaiting its reply: the next waits for it, and gets it when it is given back", async () => {
    const pacer = createPacer();
    const first = await Promise.all([1, 2, 3, 4].map(() => pacer.reserveRefusal(ip, soon())));
    let got = null;
    const waiting = pacer.reserveRefusal(ip, soon()).then((settle) => (got = settle));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(got).toBeNull();
    first[0]?.(false);
    await waiting;
    expect(typeof got).toBe("function");
  });

  it("the wait ends held back when the held unit turns into a refusal, or at the deadline", async () => {
    const pacer = createPacer({ refusals: 1 });
    const settle = await pacer.reserveRefusal(ip, soon());
    const started = Date.now();
    expect(await pacer.reserveRefusal(ip, started + 50)).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    const waiting = pacer.reserveRefusal(ip, soon());
    settle?.(true);
    expect(await waiting).toBeNull();
    expect(pacer.refusalsLeft(ip)).toBe(0);
  });

  it("a budget held by RCPTs awaiting their reply says when it has room at the latest (each refused now)", async () => {
    const pacer = createPacer();
    for (let i = 0; i < 4; i += 1) await pacer.reserveRefusal(ip, soon());
    const now = Date.now();
    expect(pacer.refusalFreeAt(ip, now)).toBe(now + PACING_DEFAULTS.refusalWindowMs);
  });

  it("an address with a reservation outstanding is not swept: its refusal still counts", async () => {
    const pacer = createPacer();
    const settle = await pacer.reserveRefusal(ip, soon());
    pacer.sweep(Date.now() + 2 * PACING_DEFAULTS.refusalWindowMs);
    settle?.(true);
    expect(pacer.refusalsLeft(ip)).toBe(3);
  });
});
