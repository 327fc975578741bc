/**
 * DNS rebinding (TOCTOU): the guard must judge the address the attempt connects to. Over DoH the fixture answers
 * `localhost` with a public address, while the system resolver a Worker's fetch() uses when it connects answers
 * loopback, as a hostile name whose second answer is loopback would. Nothing may reach the loopback trap, whatever the
 * configuration: the sidecar's URL (dev, tests), the production Container binding, or neither.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deliveryConfig } from "../../src/engines/webhooks/config";
import { PRIVATE_REFUSAL, postOnce, type DeliveryConfig } from "../../src/platform/webhooks";
import { mailStats } from "../helpers";

const trap = async () =>
  (await (await fetch(`${env.RECEIVER_URL}/__trap`)).json()) as { port: number; connections: number };

/**
 * The production Container binding (SMTP_SIDECAR): a namespace whose one named instance runs the sidecar program. The
 * container itself needs Docker, so its instance here forwards each request to the same program the tests run.
 */
function containerBinding(): NonNullable<Env["SMTP_SIDECAR"]> {
  const instance = {
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : input);
      return fetch(`${env.SMTP_SIDECAR_URL}${url.pathname}`, init);
    },
  };
  const names: string[] = [];
  return { idFromName: (name: string) => (names.push(name), name), get: () => instance } as unknown as NonNullable<
    Env["SMTP_SIDECAR"]
  >;
}

/** [env.production.vars] of wrangler.toml: no sidecar URL (the Container binding serves), loopback off. */
const productionConfig = (): DeliveryConfig => ({
  ...deliveryConfig({
    ...env,
    SMTP_SIDECAR_URL: "",
    SMTP_SIDECAR: containerBinding(),
    WEBHOOKS_ALLOW_LOOPBACK: "false",
  }),
  timeoutMs: 2_000,
});

/**
 * The sidecar's dials since `from` (an index into its record) to one of `ports`: files running at the same time share
 * the sidecar, so only a port this test chose tells its dials from theirs.
 */
async function dialsSince(from: number, ports: number[]) {
  return (await mailStats()).dials.slice(from).filter((dial) => ports.includes(dial.port));
}

/** Three attempts to the rebinding name at `port`; what the trap saw and the sidecar dialled to that port meanwhile. */
async function rebind(port: number, config: DeliveryConfig) {
  const before = await trap();
  const dialsBefore = (await mailStats()).dials.length;
  const results = [];
  for (let i = 0; i < 3; i++)
    results.push(await postOnce({ url: `https://localhost:${port}/hook`, body: "{}", secret: "whsec_test" }, config));
  return {
    results,
    trapped: (await trap()).connections - before.connections,
    dials: (await dialsSince(dialsBefore, [port])).map((dial) => dial.host),
  };
}

describe("webhook attempts connect to the address that was checked", () => {
  it("sends nothing to a name that answered the guard a public address and the connection loopback", async () => {
    const config = { ...deliveryConfig({ ...env, WEBHOOKS_ALLOW_LOOPBACK: "false" }), timeoutMs: 2_000 };
    const { results, trapped, dials } = await rebind((await trap()).port, config);
    expect(trapped).toBe(0);
    // The sidecar dialled the checked public address (the fixture keeps it off the network), never loopback.
    expect(dials).toEqual(["93.184.216.34", "93.184.216.34", "93.184.216.34"]);
    for (const result of results) expect(result).toMatchObject({ delivered: false, statusCode: 0, retryable: true });
    expect(results[0]!.detail).toMatch(/^Connection failed: /);
  });

  it("under the production configuration (Container binding, no sidecar URL) as well", async () => {
    const { results, trapped, dials } = await rebind((await trap()).port, productionConfig());
    expect(trapped).toBe(0);
    expect(dials).toEqual(["93.184.216.34", "93.184.216.34", "93.184.216.34"]);
    for (const result of results) expect(result).toMatchObject({ delivered: false, statusCode: 0, retryable: true });
  });

  it("tells a caller nothing about the private network: an open and a closed loopback port answer alike", async () => {
    const open = await rebind((await trap()).port, productionConfig());
    const closed = await rebind(1, productionConfig());
    expect(open.trapped).toBe(0);
    expect(new Set([...open.results, ...closed.results].map((r) => r.detail))).toEqual(
      new Set([open.results[0]!.detail]),
    );
    expect(open.results[0]!.detail).not.toMatch(/127\.0\.0\.1|::1|localhost|93\.184/);
  });

  it("refuses private destinations with the one generic detail, nothing sent, whatever the address", async () => {
    const config = productionConfig();
    const dialsBefore = (await mailStats()).dials.length;
    const { port } = await trap();
    const urls = [
      `https://127.0.0.1:${port}/`,
      "https://127.0.0.1:1/",
      "https://10.0.0.1/",
      "https://[::1]/",
      "https://[fd00::1]:8443/",
      "https://169.254.169.254/latest",
    ];
    for (const url of urls) {
      const result = await postOnce({ url, body: "{}", secret: "whsec_test" }, config);
      expect(result).toMatchObject({ delivered: false, statusCode: 0, detail: PRIVATE_REFUSAL, retryable: false });
    }
    const hosts = ["127.0.0.1", "10.0.0.1", "::1", "fd00::1", "169.254.169.254"];
    const dialled = await dialsSince(dialsBefore, [port, 1, 443, 8443]);
    expect(dialled.filter((dial) => hosts.includes(dial.host))).toEqual([]);
  });

  it("with no sidecar at all, sends nothing rather than a fetch that resolves the name again", async () => {
    const config = {
      ...deliveryConfig({ ...env, SMTP_SIDECAR_URL: "", SMTP_SIDECAR: undefined, WEBHOOKS_ALLOW_LOOPBACK: "false" }),
      timeoutMs: 2_000,
    };
    const { results, trapped, dials } = await rebind((await trap()).port, config);
    expect(trapped).toBe(0);
    expect(dials).toEqual([]);
    for (const result of results)
      expect(result).toMatchObject({
        delivered: false,
        statusCode: 0,
        detail: "Not sent: no delivery route",
        retryable: false,
      });
  });

  it("delivers through the sidecar to a loopback receiver when loopback is allowed (development)", async () => {
    const result = await postOnce(
      { url: `${env.RECEIVER_URL}/ok/pinned`, body: '{"a":1}', secret: "whsec_test" },
      deliveryConfig(env),
    );
    expect(result).toMatchObject({ delivered: true, statusCode: 200, detail: "200" });
    const log = (await (await fetch(`${env.RECEIVER_URL}/__log?prefix=/ok/pinned`)).json()) as {
      headers: Record<string, string>;
      body: string;
    }[];
    expect(log.at(-1)).toMatchObject({ body: '{"a":1}' });
    expect(log.at(-1)!.headers.host).toBe(new URL(env.RECEIVER_URL).host);
    expect(log.at(-1)!.headers["x-service-signature-v2"]).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
  });

  it("delivers through the Container binding to a public receiver's checked address", async () => {
    // Loopback allowed so the fixture receiver counts as a reachable receiver; the route is the production one.
    const config = deliveryConfig({ ...env, SMTP_SIDECAR_URL: "", SMTP_SIDECAR: containerBinding() });
    const result = await postOnce(
      { url: `${env.RECEIVER_URL}/ok/container`, body: '{"b":2}', secret: "whsec_test" },
      config,
    );
    expect(result).toMatchObject({ delivered: true, statusCode: 200, detail: "200" });
    const log = (await (await fetch(`${env.RECEIVER_URL}/__log?prefix=/ok/container`)).json()) as { body: string }[];
    expect(log.at(-1)).toMatchObject({ body: '{"b":2}' });
  });
});
