/**
 * A request's refund in the account's object (durable-objects/account/request-refunds.ts, docs/billing.md "A request
 * that fails after settling"): what its settlements took comes back once, prepaid units by the rule of settling.
 */
import { describe, expect, it } from "vitest";
import { accountObject, accountRows, createAccount } from "../../helpers";

const IP = { product: "ip", perCredit: 5 };

async function ipAccount(pack: number) {
  const acct = await createAccount({ pack, key: { daily_credit_cap: 10 } });
  const object = accountObject(acct.accountId);
  /** One request's unit hold of `units`, settled as its answers used them. */
  const settled = async (requestId: string, units: number[]) => {
    const held = await object.reserve({ requestId, product: "ip", amount: units.length, keyId: acct.keyId, units: IP });
    if (!held.ok) throw new Error(`hold refused: ${held.reason}`);
    return object.settle(held.reservationId, { units });
  };
  const state = async () => {
    const [snapshot, balance] = [await object.snapshot(), await object.balance("ip")];
    return { pack: snapshot.pack_credits, prepaid: balance.prepaid };
  };
  return { acct, object, settled, state };
}

describe("refundRequest", () => {
  it("gives back a credit a unit hold bought, and takes its lent units out of the pool again", async () => {
    const { object, settled, state } = await ipAccount(5);
    expect((await settled("req_opener", [1])).charged).toBe(1);
    expect(await state()).toEqual({ pack: 4, prepaid: 4 });
    expect(await object.refundRequest("req_opener")).toEqual({ applied: true, credits: 1, units: 1 });
    expect(await state()).toEqual({ pack: 5, prepaid: 0 });
    expect((await object.movements("req_opener")).map((r) => [r.kind, r.pack_delta, r.product])).toEqual([
      ["charge", -1, "ip"],
      ["refund", 1, "ip"],
    ]);
    // The usage page's credits are the charges less the refunds (its count: the charge rows).
    const { charged } = await object.usage(Date.now() - 60_000);
    expect(charged.map((c) => [c.product, c.credits, c.charges])).toEqual([["ip", 0, 1]]);
  });

  it("gives prepaid units back to the pool, with no ledger row when no credit moves", async () => {
    const { object, settled, state } = await ipAccount(5);
    await settled("req_buys", [1]);
    expect((await settled("req_prepaid", [1, 1])).charged).toBe(0);
    expect(await state()).toEqual({ pack: 4, prepaid: 2 });
    expect(await object.refundRequest("req_prepaid")).toEqual({ applied: true, credits: 0, units: 2 });
    expect(await state()).toEqual({ pack: 4, prepaid: 4 });
    expect(await object.movements("req_prepaid")).toEqual([]);
  });

  it("keeps a credit charged whose lent units others used: only its own used unit goes back to the pool", async () => {
    const { object, settled, state } = await ipAccount(5);
    await settled("req_lender", [1]);
    await settled("req_borrower", [1, 1, 1, 1]);
    expect(await state()).toEqual({ pack: 4, prepaid: 0 });
    expect(await object.refundRequest("req_lender")).toEqual({ applied: true, credits: 0, units: 1 });
    expect(await state()).toEqual({ pack: 4, prepaid: 1 });
  });

  it("gives back once however often it is sent, and the key's daily spend with it", async () => {
    const { acct, object, settled, state } = await ipAccount(3);
    await settled("req_twice", [1]);
    const refunds = await Promise.all([1, 2, 3].map(() => object.refundRequest("req_twice")));
    expect(refunds.filter((r) => r.applied)).toEqual([{ applied: true, credits: 1, units: 1 }]);
    expect(await state()).toEqual({ pack: 3, prepaid: 0 });
    // A cap of 1 credit a day: the refunded credit no longer counts, so the key may spend it again today.
    const held = await object.reserve({ requestId: "req_after", amount: 1, keyId: acct.keyId, dailyCreditCap: 1 });
    expect(held.ok).toBe(true);
  });

  it("refunds nothing, and keeps nothing, for a request that settled nothing", async () => {
    const { acct, object } = await ipAccount(1);
    expect(await object.refundRequest("req_never_settled")).toEqual({ applied: false, credits: 0, units: 0 });
    expect(await accountRows(acct.accountId, "SELECT * FROM refunded_requests")).toEqual([]);
  });
});
