import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createAccount, accountObject, json } from "../helpers";
import { setUp, SUBJECTS } from "../contract/helpers";
import { expectOneCall, figuresOf, logged, ONE_CALL } from "./round-trip-figures";

/**
 * The hot path of every registered product's single lookup, measured by the Worker's round-trip counters
 * (src/platform/trace.ts) over a few fresh paid lookups of one account, its first included (its key not cached yet,
 * its object not knowing its policy versions): what each makes before its answer, and that none of them writes to
 * the D1 primary before or after it, in the request or in its deferred work (repeat markers, history and suppressions
 * live in the account's object; the request log and email's shared mailbox answers go through the queue, whose
 * consumers' writes are no request's).
 */
/**
 * Every product's single lookup and batch makes one call to the account's object (`begin`: the rate limit, the values'
 * repeat and suppression rows, IP's feedback on the addresses, and the hold); the settlement and list writes follow
 * the answer. IP's one hold decides which item opens a credit when a lookup places the address
 * (durable-objects/account/unit-outcome.ts), so its settlement follows the answer too. Browser endpoints and
 * consistency's signal sets: round-trips-combinations.test.ts.
 */
const SINGULAR: Record<string, string> = {
  emails: "email",
  identifiers: "identifier",
  addresses: "address",
  ips: "ip",
  phones: "phone",
};
const SINGLES = SUBJECTS.filter((s) => s.registered && s.samples.batch);
const PAID = 3;

beforeAll(() => setUp(SINGLES));

describe.each(SINGLES)("the hot path of $label's single lookup", ({ samples, unitsPerCredit }) => {
  const title = `makes ${JSON.stringify(ONE_CALL)} before each fresh paid answer, the first included`;
  it(`${title}, no D1 primary write`, async () => {
    const acct = await createAccount({ pack: 50 });
    const path = samples.batch!.path.replace(/\/batch$/, "");
    const field = SINGULAR[samples.batch!.field]!;
    // IP: a credit buys five placing lookups: the first opens a credit, four use its prepaid units, the sixth opens
    // the next one.
    const measured = unitsPerCredit > 1 ? unitsPerCredit : PAID;
    const values = samples.paid(measured + 1);
    const used: number[] = [];
    const ask = async (value: unknown) => {
      const res = await call(path, json({ [field]: value }, { Authorization: `Bearer ${acct.key}` }));
      expect(res.status).toBe(200);
      used.push((res.body.meta as { credits_used: number }).credits_used);
      await logged(res.response);
      // The deferred settlement lands after the record; the next lookup must not count it as its own (and the key's
      // 5 a second is not what this measures).
      await new Promise((resolve) => setTimeout(resolve, unitsPerCredit > 1 ? 200 : 50));
    };
    await admin("DELETE", "/round-trips");
    for (const value of values) await ask(value);
    expect(used).toEqual(unitsPerCredit > 1 ? [1, 0, 0, 0, 0, 1] : values.map(() => 1));
    const figures = await figuresOf(`POST ${path}`);
    expect(figures.requests).toBe(measured + 1);
    expectOneCall(figures);
  });
});

describe.each(SINGLES)("the hot path of $label's batch", ({ samples, unitsPerCredit }) => {
  it(`makes ${JSON.stringify(ONE_CALL)} before a batch of three fresh paid values`, async () => {
    const acct = await createAccount({ pack: 50 });
    const { path, field } = samples.batch!;
    const values = samples.paid(PAID + 1);
    // The account's first lookup (its own counts are pinned above).
    const first = await call(path, json({ [field]: values.slice(0, 1) }, { Authorization: `Bearer ${acct.key}` }));
    expect(first.status).toBe(200);
    await logged(first.response);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await admin("DELETE", "/round-trips");
    const res = await call(path, json({ [field]: values.slice(1) }, { Authorization: `Bearer ${acct.key}` }));
    expect(res.status).toBe(200);
    const meta = res.body.meta as { processed: number; credits_used: number };
    expect(meta.processed).toBe(PAID);
    // IP: the first value bought the credit whose five lookups pay for these three.
    expect(meta.credits_used).toBe(unitsPerCredit === 1 ? PAID : 0);
    await logged(res.response);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const figures = await figuresOf(`POST ${path}`);
    expect(figures.requests).toBe(1);
    expectOneCall(figures);
  });
});

describe.each(SINGLES)("the hot path of $label's repeat", ({ samples, unitsPerCredit }) => {
  it("makes one call to the account's object before a free repeat, even when no prepaid unit is left", async () => {
    const acct = await createAccount({ pack: 50 });
    const path = samples.batch!.path.replace(/\/batch$/, "");
    const field = SINGULAR[samples.batch!.field]!;
    const ask = async (value: unknown) => {
      const res = await call(path, json({ [field]: value }, { Authorization: `Bearer ${acct.key}` }));
      expect(res.status).toBe(200);
      await logged(res.response);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return res.body.meta as { credits_used: number; credits_remaining: number; ip_lookups_prepaid?: number };
    };
    // IP: five placing lookups use up the credit the first one bought, so the repeat finds no prepaid unit.
    const values = samples.paid(unitsPerCredit);
    for (const value of values) await ask(value);
    const before = await accountObject(acct.accountId).snapshot();
    await admin("DELETE", "/round-trips");
    const repeat = await ask(values[0]);
    expect(repeat.credits_used).toBe(0);
    if (unitsPerCredit > 1) expect(repeat.ip_lookups_prepaid).toBe(0);
    const figures = await figuresOf(`POST ${path}`);
    expect([figures.requests, figures.before_answer.do.max, figures.before_answer.d1_primary.max]).toEqual([1, 1, 0]);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({
      pack_credits: before.pack_credits,
      reserved: 0,
    });
    expect(repeat.credits_remaining).toBe(before.available);
  });
});
