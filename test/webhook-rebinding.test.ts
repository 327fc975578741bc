/**
 * DNS rebinding (TOCTOU): the guard must judge the address the attempt connects to. Over DoH the fixture answers
 * `localhost` with a public address, while the system resolver a Worker's fetch() uses when it connects answers
 * loopback, as a hostile name whose second answer is loopback would. Nothing may reach the loopback trap.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deliveryConfig } from "../src/engines/webhooks/config";
import { clearDnsCache } from "../src/platform/doh";
import { postOnce } from "../src/platform/webhooks";
import { mailStats } from "./helpers";

const trap = async () => (await (await fetch(`${env.RECEIVER_URL}/__trap`)).json()) as { port: number; connections: number };

describe("webhook attempts connect to the address that was checked", () => {
  it("sends nothing to a name that answered the guard a public address and the connection loopback", async () => {
    clearDnsCache();
    const config = { ...deliveryConfig({ ...env, WEBHOOKS_ALLOW_LOOPBACK: "false" }), timeoutMs: 2_000 };
    const before = await trap();
    const dialsBefore = (await mailStats()).dials.length;
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await postOnce(`https://localhost:${before.port}/hook`, "{}", "whsec_test", config));
    expect((await trap()).connections).toBe(before.connections);
    // The sidecar dialled the checked public address (the fixture keeps it off the network), never loopback.
    expect((await mailStats()).dials.slice(dialsBefore)).toEqual(["93.184.216.34", "93.184.216.34", "93.184.216.34"]);
    for (const result of results) expect(result).toMatchObject({ delivered: false, statusCode: 0, retryable: true });
    expect(results[0]!.detail).toMatch(/^Connection failed: /);
  });

  it("delivers through the sidecar to a loopback receiver when loopback is allowed (development)", async () => {
    const result = await postOnce(`${env.RECEIVER_URL}/ok/pinned`, '{"a":1}', "whsec_test", deliveryConfig(env));
    expect(result).toMatchObject({ delivered: true, statusCode: 200, detail: "200" });
    const log = (await (await fetch(`${env.RECEIVER_URL}/__log?prefix=/ok/pinned`)).json()) as { headers: Record<string, string>; body: string }[];
    expect(log.at(-1)).toMatchObject({ body: '{"a":1}' });
    expect(log.at(-1)!.headers.host).toBe(new URL(env.RECEIVER_URL).host);
    expect(log.at(-1)!.headers["x-service-signature-v2"]).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
  });
});
