/**
 * Autocomplete's billing (products.md, "Fifth wave"): ten answered requests a credit in the account's prepaid units
 * (`meta.autocomplete_prepaid`), answers with a `reason` free, the same query for the same country free for 10
 * minutes; and the browser endpoint's refusals and the `autocomplete_address` tool.
 */
import { SELF } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { AutocompleteResult } from "../../../src/products/address/autocomplete/result";
import { SITEVERIFY_SECRET } from "../../fixtures/constants";
import { installSamples } from "../../address-samples";
import {
  admin,
  anotherKey,
  BASE,
  bearer,
  call,
  createAccount,
  accountObject,
  json,
  type TestAccount,
} from "../../helpers";
import { connect } from "../../mcp-client";

beforeAll(installSamples);
afterEach(() => vi.useRealTimers());

/** An account with keys taking turns (five requests a second per key). */
async function keyed(pack: number) {
  const acct = await createAccount({ pack });
  const keys = [acct.key, ...(await Promise.all(Array.from({ length: 5 }, () => anotherKey(acct))))];
  let turn = 0;
  const get = (q: string, country = "FR") =>
    call<AutocompleteResult>(
      `/api/v1/address/autocomplete?${new URLSearchParams({ q, country })}`,
      bearer(keys[turn++ % keys.length]!),
    );
  return { acct, get };
}

const billed = (body: { meta: Record<string, unknown> }) => [
  body.meta.credits_used,
  body.meta.autocomplete_prepaid,
  body.meta.cache_hit,
];

/**
 * A visitor typing `rue de rivoli paris` a letter at a time: eleven distinct folded queries from the third letter on
 * (`rue ` folds as `rue`, so a query ending in a space is not a new one).
 */
const TYPED = Array.from({ length: 17 }, (_, i) => "rue de rivoli paris".slice(0, i + 3))
  .filter((q) => !q.endsWith(" "))
  .slice(0, 11);

describe("autocomplete billing", () => {
  it("charges 1 credit for 10 answered requests, counting down meta.autocomplete_prepaid", async () => {
    const { acct, get } = await keyed(2);
    const seen = [];
    for (const q of TYPED) seen.push(billed((await get(q)).body));
    expect(seen).toEqual([
      [1, 9, false],
      [0, 8, false],
      [0, 7, false],
      [0, 6, false],
      [0, 5, false],
      [0, 4, false],
      [0, 3, false],
      [0, 2, false],
      [0, 1, false],
      [0, 0, false],
      [1, 9, false],
    ]);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(0);
  });

  it("answers too_short, not_covered and the test country free, using no prepaid unit", async () => {
    const { get } = await keyed(1);
    expect(billed((await get("rue de la paix")).body)).toEqual([1, 9, false]);
    for (const [q, country] of [
      ["ru", "FR"],
      ["via roma", "IT"],
      ["1 test", "ZZ"],
    ] as const)
      expect(billed((await get(q, country)).body)).toEqual([0, 9, false]);
  });

  it("answers the same query for the same country free within 10 minutes, and bills it again after", async () => {
    const { get } = await keyed(1);
    // The first answer 11 minutes ago, the repeat 2 minutes ago, the last one now: the faked clock goes back, never
    // ahead of real time. Faked ahead, whatever another file's background work in this shared runtime stamped
    // meanwhile (a cache entry's expiry, a breaker, a limit's next arrival) would hold for that much longer once the
    // clock was real again.
    const start = Date.now() - 11 * 60_000;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(start);
    expect(billed((await get("Place Bellecour")).body)).toEqual([1, 9, false]);
    // Spelled differently, the same folded query: a repeat; another country is another query.
    vi.setSystemTime(start + 9 * 60_000);
    const repeat = await get("place  BELLECOUR");
    expect(billed(repeat.body)).toEqual([0, 9, true]);
    expect(repeat.body.data.suggestions.map((s) => s.text)).toEqual(["Place Bellecour, 69002 Lyon 2e Arrondissement"]);
    expect(billed((await get("place bellecour", "GB")).body)).toEqual([0, 8, false]);
    vi.useRealTimers();
    expect(billed((await get("place bellecour")).body)).toEqual([0, 7, false]);
  });

  it("refuses an answered request without credits with 402, and still answers a free one", async () => {
    const { get } = await keyed(0);
    const refused = await get("quai du port");
    expect([refused.status, refused.body.error?.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    expect(billed((await get("qu")).body)).toEqual([0, 0, false]);
  });
});

describe("POST /address/autocomplete/public", () => {
  async function publishable(acct: TestAccount, challenge = false) {
    const { key } = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      user_id: acct.userId,
      allowed_domains: ["shop.example"],
      ...(challenge ? { challenge: { site_key: "0x4AAAAAAA-site", secret: SITEVERIFY_SECRET } } : {}),
    });
    return key;
  }
  const browser = (body: Record<string, unknown>, headers: Record<string, string>) =>
    call<AutocompleteResult>("/api/v1/address/autocomplete/public", json(body, headers));
  const page = (visitor: string) => ({ Origin: "https://shop.example", "CF-Connecting-IP": visitor });

  it("answers without meta and bills the key's account like the GET", async () => {
    const acct = await createAccount({ pack: 1 });
    const key = await publishable(acct);
    const { status, body } = await browser({ key, q: "55 rue du faub", country: "FR" }, page("198.51.100.40"));
    expect([status, "meta" in body, body.data.suggestions[0]?.precision]).toEqual([200, false, "premise"]);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(0);
  });

  it("refuses another origin, a bad body, a visitor past 20 a minute, and a missing challenge", async () => {
    const acct = await createAccount({ pack: 5 });
    const key = await publishable(acct);
    const foreign = await browser({ key, q: "rue", country: "FR" }, { Origin: "https://evil.example" });
    expect([foreign.status, foreign.body.error?.code]).toEqual([403, "ORIGIN_NOT_ALLOWED"]);
    const bad = await browser({ key, q: "rue", country: "Q1" }, page("198.51.100.41"));
    expect([bad.status, bad.body.error?.code]).toEqual([422, "VALIDATION_FAILED"]);
    vi.useFakeTimers({ toFake: ["Date"] });
    const visitor = page("198.51.100.42");
    for (let i = 0; i < 20; i++) expect((await browser({ key, q: "ru", country: "FR" }, visitor)).status).toBe(200);
    const over = await browser({ key, q: "ru", country: "FR" }, visitor);
    expect([over.status, over.body.error?.code]).toEqual([429, "RATE_LIMITED"]);
    vi.useRealTimers();
    const guarded = await publishable(acct, true);
    const unchallenged = await browser({ key: guarded, q: "rue", country: "FR" }, page("198.51.100.43"));
    expect([unchallenged.status, unchallenged.body.error?.code]).toEqual([403, "CHALLENGE_FAILED"]);
    const passed = await browser(
      { key: guarded, q: "rue", country: "FR", challenge_token: `pass-${crypto.randomUUID()}` },
      page("198.51.100.43"),
    );
    expect(passed.status).toBe(200);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(4);
  });
});

describe("the autocomplete_address tool", () => {
  it("answers with the GET's arguments, data and meta", async () => {
    const acct = await createAccount({ pack: 1 });
    const workerFetch: typeof fetch = (input, init) => SELF.fetch(input instanceof URL ? input.href : input, init);
    const { tool, close } = await connect(BASE, acct.key, workerFetch, { paceMs: 250 });
    const answer = await tool<AutocompleteResult>("autocomplete_address", {
      q: "2 av champs",
      country: "FR",
      limit: 1,
    });
    expect(answer.isError).toBe(false);
    expect(answer.data.suggestions.map((s) => [s.text, s.precision])).toEqual([
      ["2 Avenue des Champs-Élysées, 75008 Paris 8e Arrondissement", "premise"],
    ]);
    expect(answer.meta).toMatchObject({ credits_used: 1, autocomplete_prepaid: 9 });
    const refused = await tool("autocomplete_address", { q: "rue", country: "XX" });
    expect([refused.isError, refused.error.code]).toEqual([true, "VALIDATION_FAILED"]);
    await close();
  });
});
