/**
 * Allow and deny lists (`/ip/lists`, docs/ip.md "Lists"): addresses, blocks and AS numbers, consulted by every IP
 * answer of the account (`list`, `reason`, risk), at most 10 a account (`409 IP_LIST_LIMIT_REACHED`).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { IpResult } from "../../../src/products/ip/result";
import { anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { installIpSamples } from "../../ip-samples";

type ListView = { id: number; name: string; kind: string; entries: string[]; created_at: string; updated_at: string };

const send = (key: string, method: string, path: string, body?: unknown) =>
  call<{ list: ListView; lists: ListView[] }>(
    `/api/v1${path}`,
    body === undefined ? { method, ...bearer(key) } : json(body, { Authorization: `Bearer ${key}` }, method),
  );
const batch = (key: string, ips: string[]) =>
  call<{ results: { data: IpResult }[] }>("/api/v1/ip/batch", json({ ips }, { Authorization: `Bearer ${key}` }));

beforeAll(installIpSamples);

async function keys(acct: TestAccount, n: number) {
  const all = [acct.key];
  while (all.length < n) all.push(await anotherKey(acct));
  return all;
}

describe("IP lists", () => {
  it("creates, reads, renames, replaces and deletes a list, spelling entries canonically", async () => {
    const acct = await createAccount({ pack: 5 });
    const [k1, k2] = await keys(acct, 2);
    const created = await send(k1!, "POST", "/ip/lists", {
      name: "Office",
      kind: "allow",
      entries: ["203.0.113.7", "10.1.2.3/8", "2001:DB8:0:0::/32", "as64496", 64497, "::ffff:198.51.100.1"],
    });
    expect(created.status).toBe(201);
    const list = created.body.data.list;
    expect(list).toMatchObject({
      name: "Office",
      kind: "allow",
      entries: ["203.0.113.7", "10.0.0.0/8", "2001:db8::/32", "AS64496", "AS64497", "198.51.100.1"],
    });
    expect((await send(k1!, "GET", `/ip/lists/${list.id}`)).body.data.list).toEqual(list);
    const patched = await send(k1!, "PATCH", `/ip/lists/${list.id}`, {
      name: "Blocked",
      kind: "deny",
      entries: ["1.1.1.0/24"],
    });
    expect(patched.body.data.list).toMatchObject({
      id: list.id,
      name: "Blocked",
      kind: "deny",
      entries: ["1.1.1.0/24"],
      created_at: list.created_at,
    });
    const listed = await send(k2!, "GET", "/ip/lists");
    expect([listed.body.data.lists.map((l) => l.id), listed.body.meta.max_lists]).toEqual([[list.id], 10]);
    expect((await send(k2!, "DELETE", `/ip/lists/${list.id}`)).body.data.list.id).toBe(list.id);
    expect((await send(k2!, "GET", `/ip/lists/${list.id}`)).status).toBe(404);
  });

  it("refuses entries that are not addresses, blocks or AS numbers, naming each", async () => {
    const acct = await createAccount();
    const { status, body } = await call(
      "/api/v1/ip/lists",
      json(
        { name: "x", kind: "deny", entries: ["1.2.3.4", "example.com", "10.0.0.0/40", "AS"] },
        { Authorization: `Bearer ${acct.key}` },
      ),
    );
    expect([status, body.error.code, Object.keys(body.error.errors!)]).toEqual([
      422,
      "VALIDATION_FAILED",
      ["entries.1", "entries.2", "entries.3"],
    ]);
    const empty = await send(acct.key, "PATCH", "/ip/lists/1", {});
    expect(empty.status).toBe(422);
  });

  it("answers 409 IP_LIST_LIMIT_REACHED for the eleventh list, even when created at once", async () => {
    const acct = await createAccount();
    const all = await keys(acct, 3);
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        send(all[i % 3]!, "POST", "/ip/lists", { name: `L${i}`, kind: "deny", entries: [] }),
      ),
    );
    expect(attempts.filter((a) => a.status === 201)).toHaveLength(10);
    for (const refused of attempts.filter((a) => a.status !== 201))
      expect([refused.status, refused.body.error.code]).toEqual([409, "IP_LIST_LIMIT_REACHED"]);
  });

  it("keeps lists to their account: another account's list is 404 and never matches", async () => {
    const owner = await createAccount({ pack: 5 });
    const other = await createAccount({ pack: 5 });
    const { body } = await send(owner.key, "POST", "/ip/lists", { name: "Mine", kind: "deny", entries: ["9.9.9.9"] });
    expect((await send(other.key, "GET", `/ip/lists/${body.data.list.id}`)).status).toBe(404);
    expect((await send(other.key, "DELETE", `/ip/lists/${body.data.list.id}`)).status).toBe(404);
    const answer = await batch(other.key, ["9.9.9.9"]);
    expect(answer.body.data.results[0]!.data.list).toBeNull();
  });

  it(
    "is consulted by every answer: by address, block and AS, deny over allow, reserved addresses " + "included",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const [k1, k2] = await keys(acct, 2);
      const allow = (
        await send(k1!, "POST", "/ip/lists", {
          name: "Partners",
          kind: "allow",
          entries: ["AS15169", "192.168.0.0/16", "2606:4700::/32"],
        })
      ).body.data.list;
      const deny = (
        await send(k1!, "POST", "/ip/lists", { name: "Abuse", kind: "deny", entries: ["8.8.4.4", "AS19281"] })
      ).body.data.list;
      const { body } = await batch(k2!, [
        "8.8.8.8",
        "8.8.4.4",
        "9.9.9.9",
        "192.168.1.20",
        "2606:4700:4700::1111",
        "1.1.1.1",
      ]);
      const answers = body.data.results.map((r) => r.data);
      expect(answers.map((a) => [a.ip, a.list?.name ?? null, a.reason, a.risk_score, a.risk_level])).toEqual([
        ["8.8.8.8", "Partners", "allow_list", 0, "low"],
        ["8.8.4.4", "Abuse", "deny_list", 100, "high"],
        ["9.9.9.9", "Abuse", "deny_list", 100, "high"],
        ["192.168.1.20", "Partners", "allow_list", 0, "low"],
        ["2606:4700:4700::1111", "Partners", "allow_list", 0, "low"],
        // On no list: an anycast resolver (placed nowhere), hosting by its AS.
        ["1.1.1.1", null, "anycast", 40, "medium"],
      ]);
      expect(answers[1]!.list).toEqual({ id: deny.id, name: "Abuse", kind: "deny" });
      expect(answers[0]!.risk_components).toEqual({ allow_list: 0 });
      expect(answers[1]!.risk_components).toEqual({ deny_list: 100, hosting: 40 });
      expect(answers[3]).toMatchObject({ reserved: true, country: null, list: { id: allow.id, kind: "allow" } });
      expect(answers[0]!.sources.at(-1)).toEqual({ dataset: "ip-lists", version: allow.updated_at, coverage: "full" });
    },
  );
});
