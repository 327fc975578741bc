// Pacing that fits the server (provider-pacing.mjs, mx-pacing.mjs): a large provider's MX, named by the
// mx-provider-patterns dataset, gets the provider limits; a small server keeps fail2ban's budget; a provider that
// throttles us in words is still backed off. Production pacing throughout; MX names resolve to the loopback server.
import { describe, expect, it } from "vitest";
import { createPacer, PACING_DEFAULTS } from "../mx-pacing.mjs";
import { isLargeProvider, providerOf } from "../provider-pacing.mjs";
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

const GMAIL = "gmail-smtp-in.l.google.com";
const SMALL = "mx.small-server.example";
const loopback = { resolve4: async () => ["127.0.0.1"], resolve6: async () => [] };

async function sidecarFor(server, pacing = PACING_DEFAULTS) {
  const sidecar = await startSidecar({ smtpPort: server.port, pacing, resolver: loopback });
  cleanups.push(server.close, sidecar.close);
  return sidecar;
}

const at = (host, addresses, overrides = {}) =>
  probeBody(addresses, { mx_hosts: [{ host, preference: 10 }], catch_all_probe: false, ...overrides });
const known = (address) => (address.startsWith("ok") ? null : [550, "5.1.1 User unknown"]);

describe("which MX hosts are a large provider's", () => {
  it.each([
    [GMAIL, "google", true],
    ["alt4.aspmx.l.google.com.", "google", true],
    ["contoso-com.mail.protection.outlook.com", "microsoft", true],
    ["mta5.am0.yahoodns.net", "yahoo", true],
    ["mx01.mail.icloud.com", "icloud", true],
    ["mx1.contoso.iphmx.com", "cisco", false],
    ["mx.evilgoogle.com", null, false],
    [SMALL, null, false],
    ["192.0.2.1", null, false],
  ])("%s: %s, large %s", (host, provider, large) => {
    expect(providerOf(host)).toBe(provider);
    expect(isLargeProvider(host)).toBe(large);
  });
});

describe("the provider limits", () => {
  it("replace the small-server ones at a large provider's address, and never tighten lifted ones", () => {
    const pacer = createPacer();
    pacer.setLarge("192.0.2.1", true);
    expect(pacer.refusalsLeft("192.0.2.1")).toBe(100);
    expect(pacer.refusalsLeft("192.0.2.2")).toBe(4);
    const lifted = createPacer({ refusals: 1_000_000, connects: 1_000_000 });
    lifted.setLarge("192.0.2.1", true);
    expect(lifted.refusalsLeft("192.0.2.1")).toBe(1_000_000);
    for (let i = 0; i < 40; i += 1) expect(lifted.bookConnect("192.0.2.1", Date.now() + 1000)).not.toBeNull();
  });
});

describe("the pace fits the server", () => {
  const list = Array.from({ length: 20 }, (_, i) => `${i % 2 ? "ok" : "nobody"}${i}@example.test`);

  it("a list half unknown users: a small server's answers stop at fail2ban's 4, a provider's all come", async () => {
    const small = await sidecarFor(await startSmtpServer({ rcpt: known }));
    const { body: paced } = await postProbe(small.url, at(SMALL, list));
    expect(paced.results.filter((r) => r.outcome === "no_mailbox")).toHaveLength(4);
    // Answered up to the 4th unknown user (the 7th address), the rest held back.
    expect(paced.results.filter((r) => r.outcome === "deferred")).toHaveLength(list.length - 7);

    const smtp = await startSmtpServer({ rcpt: known });
    const provider = await sidecarFor(smtp);
    const { body } = await postProbe(provider.url, at(GMAIL, list));
    expect(body.mx_host).toBe(GMAIL);
    const truth = list.map((a) => (a.startsWith("ok") ? "accepted" : "no_mailbox"));
    expect(body.results.map((r) => r.outcome)).toEqual(truth);
    // Still at most 8 refusals a session (Postfix's soft error limit is no provider's, but costs nothing to keep).
    expect(Math.max(...Object.values(smtp.stats.refusedPerSession))).toBeLessThanOrEqual(8);
  });

  it("a provider's connection pace is its own: 8 sessions in a second where a small server gets 5", async () => {
    const pacing = { ...PACING_DEFAULTS, sessionErrors: 1 };
    const unknown = Array.from({ length: 8 }, (_, i) => `nobody${i}@example.test`);
    const smtp = await startSmtpServer({ rcpt: known });
    const provider = await sidecarFor(smtp, pacing);
    const { body } = await postProbe(provider.url, at(GMAIL, unknown, { timeout_ms: 3000 }));
    expect(body.results.map((r) => r.outcome)).toEqual(Array(8).fill("no_mailbox"));
    expect(smtp.stats.sessions).toBe(8);

    const small = await startSmtpServer({ rcpt: known });
    const paced = await sidecarFor(small, { ...pacing, refusals: 100 });
    const { body: slow } = await postProbe(paced.url, at(SMALL, unknown, { timeout_ms: 3000 }));
    expect(slow.results.filter((r) => r.outcome === "no_mailbox")).toHaveLength(5);
    expect(small.stats.sessions).toBe(5);
  });

  it("a provider that throttles the prober in words is backed off like any server", async () => {
    let rcpts = 0;
    const server = await startScriptedSmtp((line) => {
      if (!line.startsWith("RCPT")) return politeReply(line);
      rcpts += 1;
      if (rcpts <= 2) return "250 2.1.5 OK";
      return "421 4.7.0 [127.0.0.1] Our system has detected an unusual rate of unsolicited mail from your IP";
    });
    const sidecar = await sidecarFor(server);
    const addresses = ["ok1@example.test", "ok2@example.test", "ok3@example.test"];
    const { body } = await postProbe(sidecar.url, at(GMAIL, addresses));
    expect(body.results.map((r) => r.outcome)).toEqual(["accepted", "accepted", "blocked"]);
    const { body: next } = await postProbe(sidecar.url, at(GMAIL, ["ok4@example.test"]));
    expect(next.results[0]).toMatchObject({ outcome: "blocked", smtp_code: 421, enhanced_status: "4.7.0" });
    expect(server.stats.connections).toBe(1);
  });
});
