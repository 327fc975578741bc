import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { resolve } from "../../src/platform/doh";
import { runInIoScope } from "../../src/platform/io-scope";

/**
 * No invocation awaits a query another one started (src/platform/io-scope.ts): the Workers runtime can cancel the
 * waiter with the request that owns the I/O, which then answers a bare 500. DNS (and RDAP) queries under way are shared
 * only inside one invocation (src/index.ts gives each request, queue batch and cron event its own scope); between
 * invocations only settled answers are, through the caches. The DoH stand-in counts the queries that reach it.
 */
const queriesFor = async (name: string) =>
  Number(await (await fetch(`${new URL(env.DOH_URL).origin}/__queries?name=${name}`)).json());
const fresh = () => `fresh-${crypto.randomUUID().slice(0, 8)}.example`;

describe("DNS queries under way are shared only inside one invocation", () => {
  it("lookups of one name started together in one invocation make one query", async () => {
    const name = fresh();
    const answers = await runInIoScope(() =>
      Promise.all([resolve(env.DOH_URL, name, "A"), resolve(env.DOH_URL, name, "A"), resolve(env.DOH_URL, name, "A")]),
    );
    expect(answers.map((a) => a.status)).toEqual(["nxdomain", "nxdomain", "nxdomain"]);
    expect(await queriesFor(name)).toBe(1);
  });

  it(
    "lookups of one name started together in two invocations each make their own query; later ones use the " + "cache",
    async () => {
      const name = fresh();
      await Promise.all([
        runInIoScope(() => resolve(env.DOH_URL, name, "A")),
        runInIoScope(() => resolve(env.DOH_URL, name, "A")),
      ]);
      expect(await queriesFor(name)).toBe(2);
      await runInIoScope(() => resolve(env.DOH_URL, name, "A"));
      expect(await queriesFor(name)).toBe(2);
    },
  );

  it("outside any invocation's scope nothing under way is shared", async () => {
    const name = fresh();
    await Promise.all([resolve(env.DOH_URL, name, "A"), resolve(env.DOH_URL, name, "A")]);
    expect(await queriesFor(name)).toBe(2);
  });
});
