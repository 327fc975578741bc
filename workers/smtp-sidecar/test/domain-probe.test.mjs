// The Worker's domain prober (src/platform/domain-probe.ts) against this sidecar and a real SMTP server on loopback:
// lists of any size at one domain, split into calls the sidecar takes, in sessions it keeps.
import { describe, expect, it } from "vitest";
import { isProbeable, probeDomain, SIDECAR_LIMITS } from "../../../src/platform/domain-probe.ts";
import { isSafeAddress, LIMITS } from "../request-schema.mjs";
import { closedAfterEach, refusedPort, SECRET, startSidecar, startSmtpServer } from "./helpers.mjs";

const cleanups = closedAfterEach();

/** A server where `ok-*` mailboxes exist, the sidecar in front of it, and every call the prober makes. */
async function setup() {
  const smtp = await startSmtpServer({
    rcpt: (address) => (address.startsWith("ok-") ? null : [550, "5.1.1 No such user here"]),
  });
  const sidecar = await startSidecar({ smtpPort: smtp.port });
  cleanups.push(smtp.close, sidecar.close);
  const calls = [];
  const fetchImpl = (url, init) => {
    calls.push(JSON.parse(init.body));
    return fetch(url, init);
  };
  return { smtp, sidecar, calls, fetchImpl };
}

const request = (addresses) => ({
  domain: "example.test",
  mxHosts: [{ host: "127.0.0.1", preference: 10 }],
  addresses,
  timeoutMs: 10_000,
});
const list = (kind, count) => Array.from({ length: count }, (_, i) => `${kind}-${i}@example.test`);

describe("probeDomain against the real sidecar", () => {
  it("answers 2,000 addresses at one domain in 40 calls, at most 5 sessions at once, each ended early", async () => {
    const { smtp, sidecar, calls, fetchImpl } = await setup();
    const addresses = [...list("ok", 1_600), ...list("no", 400)];
    const started = performance.now();
    const result = await probeDomain({ url: sidecar.url }, SECRET, request(addresses), fetchImpl);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `2,000 addresses: ${seconds.toFixed(2)} s, ${smtp.stats.sessions} sessions, ${smtp.stats.peakOpen} at once`,
    );

    expect(result.results.map((r) => r.address)).toEqual(addresses);
    const outcomes = result.results.map((r) => r.outcome);
    expect(outcomes.slice(0, 1_600).every((o) => o === "accepted")).toBe(true);
    expect(outcomes.slice(1_600).every((o) => o === "no_mailbox")).toBe(true);
    expect(result).toMatchObject({ mxHost: "127.0.0.1", catchAll: false, calls: 40 });
    expect(calls).toHaveLength(40);
    expect(calls.every((body) => body.addresses.length === 50)).toBe(true);
    // One random address (the first call's) answers the catch-all question for the whole list.
    expect(calls.filter((body) => body.catch_all_probe !== false)).toHaveLength(1);
    expect(smtp.stats.rcpts).toHaveLength(2_001);
    // 401 refusals, at most 8 a session (Postfix slows every reply from the 11th error of a connection on).
    expect(Math.max(...Object.values(smtp.stats.refusedPerSession))).toBe(8);
    expect(smtp.stats.sessions).toBeGreaterThanOrEqual(Math.ceil(401 / 8));
    expect(smtp.stats.sessions).toBeLessThanOrEqual(Math.ceil(401 / 8) + 8);
    expect(smtp.stats.peakOpen).toBeGreaterThan(1);
    expect(smtp.stats.peakOpen).toBeLessThanOrEqual(5);
    expect(smtp.stats.dataCalls).toBe(0);
  });

  it("answers an address the sidecar cannot take on its own, and its siblings from the server", async () => {
    const { smtp, sidecar, calls, fetchImpl } = await setup();
    const odd = ['"x y"@example.test', "josé@example.test"];
    const addresses = ["ok-1@example.test", odd[0], ...list("no", 60), odd[1], "ok-2@example.test"];
    const result = await probeDomain({ url: sidecar.url }, SECRET, request(addresses), fetchImpl);
    const byAddress = Object.fromEntries(result.results.map((r) => [r.address, r]));
    for (const address of odd)
      expect(byAddress[address]).toEqual({
        address,
        outcome: "provider_unavailable",
        smtpCode: null,
        smtpMessage: null,
        enhancedStatus: null,
      });
    expect(byAddress["ok-1@example.test"]).toMatchObject({ outcome: "accepted", smtpCode: 250 });
    expect(byAddress["ok-2@example.test"]).toMatchObject({ outcome: "accepted", smtpCode: 250 });
    expect(result.results.filter((r) => r.outcome === "no_mailbox")).toHaveLength(60);
    expect(calls.map((body) => body.addresses.length)).toEqual([50, 12]);
    expect(smtp.stats.rcpts.some((r) => r.includes("x y") || r.includes("jos"))).toBe(false);
  });

  it("makes one call, not one per 50 addresses, when the mail server holds no conversation", async () => {
    const sidecar = await startSidecar({ smtpPort: await refusedPort() });
    cleanups.push(sidecar.close);
    let calls = 0;
    const fetchImpl = (url, init) => {
      calls += 1;
      return fetch(url, init);
    };
    const result = await probeDomain({ url: sidecar.url }, SECRET, request(list("ok", 120)), fetchImpl);
    expect(calls).toBe(1);
    expect(result.calls).toBe(1);
    expect(new Set(result.results.map((r) => r.outcome))).toEqual(new Set(["unavailable"]));
    expect(result.results).toHaveLength(120);
  });

  it("sends the sidecar at most 20 MX hosts, best preference first", async () => {
    const { sidecar, calls, fetchImpl } = await setup();
    const mxHosts = Array.from({ length: 30 }, (_, i) => ({
      host: i === 29 ? "127.0.0.1" : `mx${i}.invalid`,
      preference: 30 - i,
    }));
    const result = await probeDomain(
      { url: sidecar.url },
      SECRET,
      { ...request(["ok-1@example.test"]), mxHosts },
      fetchImpl,
    );
    expect(calls[0].mx_hosts).toHaveLength(20);
    expect(calls[0].mx_hosts[0]).toEqual({ host: "127.0.0.1", preference: 1 });
    expect(result.results[0].outcome).toBe("accepted");
  });
});

describe("what one sidecar call takes", () => {
  it("is the sidecar's own limit, and an address is probeable exactly when the sidecar accepts it", () => {
    expect(SIDECAR_LIMITS).toEqual({
      addresses: LIMITS.addresses.max,
      mxHosts: LIMITS.mxHosts.max,
      addressLength: LIMITS.addressLength,
      localPartLength: LIMITS.localPartLength,
    });
    const samples = [
      "alice@example.test",
      "a.b+c@EXAMPLE.test",
      '"x y"@example.test',
      "josé@example.test",
      "a..b@example.test",
      ".a@example.test",
      "a@other.test",
      `${"a".repeat(64)}@example.test`,
      `${"a".repeat(65)}@example.test`,
      "@example.test",
      "a b@example.test",
      "<a>@example.test",
    ];
    for (const address of samples)
      expect([address, isProbeable(address, "example.test")]).toEqual([
        address,
        isSafeAddress(address, "example.test"),
      ]);
  });
});
