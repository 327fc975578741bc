// The HTTP face of the sidecar: authentication, input safety, the SSRF guard, and the Worker client talking to it.
import { describe, expect, it } from "vitest";
import { probeMailboxes } from "../../../src/platform/smtp-sidecar-client.ts";
import {
  closedAfterEach,
  nowSeconds,
  postProbe,
  probeBody,
  refusedPort,
  SECRET,
  startSidecar,
  startSmtpServer,
} from "./helpers.mjs";

const cleanups = closedAfterEach();

async function setup(sidecarConfig = {}) {
  const smtp = await startSmtpServer({
    rcpt: (address) => (address.startsWith("alice@") ? null : [550, "no such user"]),
  });
  const sidecar = await startSidecar({ smtpPort: smtp.port, ...sidecarConfig });
  cleanups.push(smtp.close, sidecar.close);
  return { smtp, sidecar };
}

describe("HTTP routes", () => {
  it("answers GET /healthz with ok, unknown paths with 404 and wrong verbs with 405", async () => {
    const { sidecar } = await setup();
    const health = await fetch(`${sidecar.url}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, "ok"]);
    expect((await fetch(`${sidecar.url}/nope`)).status).toBe(404);
    const wrongVerb = await fetch(`${sidecar.url}/v1/probe`);
    expect([wrongVerb.status, wrongVerb.headers.get("allow")]).toEqual([405, "POST"]);
  });
});

describe("authentication", () => {
  it("refuses a bad signature with 401 and connects nowhere", async () => {
    const { smtp, sidecar } = await setup();
    const { status, body } = await postProbe(sidecar.url, probeBody(["alice@example.test"]), {
      signature: "0".repeat(64),
    });
    expect(status).toBe(401);
    expect(body).toEqual({ error: "bad signature" });
    expect(sidecar.dials).toEqual([]);
    expect(smtp.stats.sessions).toBe(0);
  });

  it("refuses a body signed with another secret, and missing headers", async () => {
    const { sidecar } = await setup();
    expect(
      (await postProbe(sidecar.url, probeBody(["alice@example.test"]), { secret: "another-secret-0123456789" })).status,
    ).toBe(401);
    const unsigned = await fetch(`${sidecar.url}/v1/probe`, {
      method: "POST",
      body: JSON.stringify(probeBody(["alice@example.test"])),
    });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toHaveProperty("error");
  });

  it("refuses a timestamp more than 300 seconds old or ahead, even when correctly signed", async () => {
    const { sidecar } = await setup();
    // 305, not 301: the sidecar reads its clock a moment after this line, and a second that ticks in between brought
    // +301 to 300 seconds ahead, inside the window (CI saw it pass as 200 once).
    for (const timestamp of [nowSeconds() - 305, nowSeconds() + 305]) {
      const { status, body } = await postProbe(sidecar.url, probeBody(["alice@example.test"]), { timestamp });
      expect(status).toBe(401);
      expect(body.error).toMatch(/timestamp/);
    }
    expect(sidecar.dials).toEqual([]);
  });
});

describe("input safety", () => {
  it.each([
    ["a\r\nDATA@example.test"],
    ["<a>@example.test"],
    ["a@example.test>\r\nDATA"],
    ["ok@example.test", "a b@example.test"],
    ["a@elsewhere.test"],
  ])("refuses the addresses %j with 400 and sends nothing", async (...addresses) => {
    const { smtp, sidecar } = await setup();
    const { status, body } = await postProbe(sidecar.url, probeBody(addresses));
    expect(status).toBe(400);
    expect(body.error).toMatch(/address/);
    expect(sidecar.dials).toEqual([]);
    expect(smtp.stats.sessions).toBe(0);
  });

  it("refuses malformed JSON and out-of-range fields with 400", async () => {
    const { sidecar } = await setup();
    expect((await postProbe(sidecar.url, "{not json")).status).toBe(400);
    expect((await postProbe(sidecar.url, probeBody(["alice@example.test"], { timeout_ms: 1000 }))).status).toBe(400);
    expect(
      (
        await postProbe(
          sidecar.url,
          probeBody(["alice@example.test"], { mx_hosts: [{ host: "mx\r\n.test", preference: 1 }] }),
        )
      ).status,
    ).toBe(400);
  });
});

describe("private and reserved MX addresses", () => {
  it.each(["10.0.0.1", "169.254.1.1", "::ffff:10.0.0.1", "192.168.1.10", "fd00::25"])(
    "refuses the MX %s without connecting",
    async (host) => {
      const { sidecar } = await setup();
      const { status, body } = await postProbe(
        sidecar.url,
        probeBody(["alice@example.test", "bob@example.test"], { mx_hosts: [{ host, preference: 10 }] }),
      );
      expect(status).toBe(200);
      expect(body).toMatchObject({ mx_host: null, catch_all: null });
      expect(body.results.map((result) => result.outcome)).toEqual(["refused_private", "refused_private"]);
      expect(sidecar.dials).toEqual([]);
    },
  );

  it(
    "refuses an MX host name whose addresses are all private, and skips private addresses when a public one " +
      "exists",
    async () => {
      const resolver = {
        resolve4: async (name) =>
          ({ "evil.example.test": ["10.1.2.3"], "mixed.example.test": ["192.168.0.5", "127.0.0.1"] })[name] ?? [],
        resolve6: async (name) => (name === "evil.example.test" ? ["fe80::1"] : []),
      };
      const { sidecar } = await setup({ resolver });
      const refused = await postProbe(
        sidecar.url,
        probeBody(["alice@example.test"], { mx_hosts: [{ host: "evil.example.test", preference: 0 }] }),
      );
      expect(refused.body.results[0].outcome).toBe("refused_private");
      expect(sidecar.dials).toEqual([]);

      const mixed = await postProbe(
        sidecar.url,
        probeBody(["alice@example.test"], { mx_hosts: [{ host: "mixed.example.test", preference: 0 }] }),
      );
      expect(mixed.body.results[0].outcome).toBe("accepted");
      expect(sidecar.dials).toEqual(["127.0.0.1"]);
    },
  );

  it("refuses loopback MX addresses unless SIDECAR_ALLOW_LOOPBACK is set", async () => {
    const { smtp, sidecar } = await setup({ allowLoopback: false });
    for (const host of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      const { body } = await postProbe(
        sidecar.url,
        probeBody(["alice@example.test"], { mx_hosts: [{ host, preference: 0 }] }),
      );
      expect(body.results[0].outcome).toBe("refused_private");
    }
    expect(sidecar.dials).toEqual([]);
    expect(smtp.stats.sessions).toBe(0);
  });
});

describe("the Worker client (src/platform/smtp-sidecar-client.ts) against the running sidecar", () => {
  const request = {
    domain: "example.test",
    mxHosts: [{ host: "127.0.0.1", preference: 10 }],
    addresses: ["alice@example.test", "zed@example.test"],
    timeoutMs: 3000,
  };

  it("signs requests the sidecar accepts and maps the answer to camelCase", async () => {
    const { sidecar } = await setup();
    const result = await probeMailboxes({ url: `${sidecar.url}/` }, SECRET, request);
    expect(result).toMatchObject({
      mxHost: "127.0.0.1",
      catchAll: false,
      results: [
        { address: "alice@example.test", outcome: "accepted", smtpCode: 250, smtpMessage: "Accepted" },
        { address: "zed@example.test", outcome: "no_mailbox", smtpCode: 550, smtpMessage: "no such user" },
      ],
    });
  });

  it("works through a Fetcher-style binding too", async () => {
    const { sidecar } = await setup();
    const fetcher = { fetch: (input, init) => fetch(new URL(new URL(input).pathname, sidecar.url), init) };
    const result = await probeMailboxes({ fetcher }, SECRET, request);
    expect(result.results.map((r) => r.outcome)).toEqual(["accepted", "no_mailbox"]);
  });

  it("reports provider_unavailable, never throws, on a wrong secret or an unreachable sidecar", async () => {
    const { sidecar } = await setup();
    const wrongSecret = await probeMailboxes({ url: sidecar.url }, "not-the-shared-secret", request);
    const unreachable = await probeMailboxes({ url: `http://127.0.0.1:${await refusedPort()}` }, SECRET, request);
    for (const result of [wrongSecret, unreachable]) {
      expect(result).toMatchObject({ mxHost: null, catchAll: null });
      expect(result.results).toEqual(
        request.addresses.map((address) => ({
          address,
          outcome: "provider_unavailable",
          smtpCode: null,
          smtpMessage: null,
          enhancedStatus: null,
        })),
      );
    }
  });
});
