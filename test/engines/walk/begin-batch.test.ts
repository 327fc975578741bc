/**
 * A batch's one call before its answer (src/engines/walk/begin.ts): the account's object reads every value's repeat
 * and suppression rows, holds for the first wave of what still needs paying, and the batch settles after its answer.
 * Where the first wave does not cover the list (credits short), later waves resize the same hold and money stays
 * exact.
 */
import { describe, expect, it } from "vitest";
import { admin, call, createAccount, accountObject, json, lookupEmail } from "../../helpers";

interface RouteFigures {
  route: string;
  requests: number;
  before_answer: Record<"do" | "d1_primary", { mean: number; max: number }>;
}

/** Fresh values each run (the shared mailbox answers outlive a test). */
const run = crypto.randomUUID().slice(0, 8);
const seen = `seen${run}@catchall.example`;

const batch = (key: string, emails: string[]) =>
  call<{ results: { meta: { credits_used: number; cache_hit: boolean; suppressed: boolean } }[] }>(
    "/api/v1/email/batch",
    json({ emails }, { Authorization: `Bearer ${key}` }),
  );

/** Polls the account's object until nothing is held (the deferred settlement landed). */
async function settled(accountId: string) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const snapshot = await accountObject(accountId).snapshot();
    if (snapshot.reserved === 0 || Date.now() > deadline) return snapshot;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const batchFigures = async () =>
  (await admin<{ routes: RouteFigures[] }>("GET", "/round-trips")).routes.find(
    (r) => r.route === "POST /api/v1/email/batch",
  )!;

describe("a batch's first call", () => {
  it("reads a repeat and a suppression with the hold, pays two fresh values, and makes one call first", async () => {
    const acct = await createAccount({ pack: 10 });
    expect((await lookupEmail(acct.key, { email: seen })).body.meta).toMatchObject({
      credits_used: 1,
    });
    expect((await lookupEmail(acct.key, { email: "nobody@acme.example" })).body.meta).toMatchObject({
      credits_used: 0,
    });
    expect((await settled(acct.accountId)).reserved).toBe(0);
    await admin("DELETE", "/round-trips");
    const emails = [seen, "nobody@acme.example", `carol${run}@catchall.example`, `dan${run}@catchall.example`];
    const { status, body } = await batch(acct.key, emails);
    expect(status).toBe(200);
    expect(body.data.results.map((r) => [r.meta.credits_used, r.meta.cache_hit, r.meta.suppressed])).toEqual([
      [0, true, false],
      [0, false, true],
      [1, false, false],
      [1, false, false],
    ]);
    expect(body.meta).toMatchObject({ processed: 4, credits_used: 2, credits_remaining: 7, stopped_reason: null });
    expect((await batchFigures()).before_answer.do.max).toBe(1);
    expect(await settled(acct.accountId)).toMatchObject({ pack_credits: 7, reserved: 0 });
  });

  it("credits short of the list: the first wave takes half, later waves resize, every credit counted", async () => {
    const acct = await createAccount({ pack: 4 });
    await admin("DELETE", "/round-trips");
    const emails = Array.from({ length: 6 }, (_, i) => `short${i}-${run}@catchall.example`);
    const { status, body } = await batch(acct.key, emails);
    expect(status).toBe(200);
    expect(body.data.results.map((r) => r.meta.credits_used)).toEqual([1, 1, 1, 1]);
    expect(body.meta).toMatchObject({
      requested: 6,
      processed: 4,
      credits_used: 4,
      credits_remaining: 0,
      stopped_reason: "insufficient_credits",
    });
    // 2 of 4 in the first call's wave, then resizes for the rest and the refusal of the fifth.
    expect((await batchFigures()).before_answer.do.max).toBeGreaterThan(1);
    expect(await settled(acct.accountId)).toMatchObject({ pack_credits: 0, reserved: 0 });
  });
});
