/**
 * What a unit hold's settlement comes to when the hold alone decides it (durable-objects/account/unit-outcome.ts), and
 * the rule of a settlement made as the answer said (`asAnswered`, docs/billing.md "Settling after the answer"): no
 * credit is given back for units others returned since, and the customer keeps those units.
 */
import { describe, expect, it } from "vitest";
import { unitOutcome } from "../../../durable-objects/account/unit-outcome";
import { createAccount, accountObject } from "../../helpers";

describe("unitOutcome", () => {
  it("charges nothing for a hold that bought no credit, giving back the prepaid units it did not use", () => {
    expect(unitOutcome({ held: 3, credits: 0, lent: 0, perCredit: 5 }, [1, 0, 1])).toEqual({
      perItem: [0, 0, 0],
      charge: 0,
      back: 1,
    });
    expect(unitOutcome({ held: 1, credits: 0, lent: 0, perCredit: 5 }, [])).toEqual({
      perItem: [],
      charge: 0,
      back: 1,
    });
  });

  it("charges the hold's credits when its answers used every unit they kept: each opener reports 1", () => {
    // One lookup opening a credit, its other four units lent to the pool.
    expect(unitOutcome({ held: 0, credits: 1, lent: 4, perCredit: 5 }, [1])).toEqual({
      perItem: [1],
      charge: 1,
      back: 0,
    });
    // Two prepaid units first, then seven from two credits (three of their units lent).
    expect(unitOutcome({ held: 2, credits: 2, lent: 3, perCredit: 5 }, [1, 1, 1, 1, 1, 1, 1, 1, 1])).toEqual({
      perItem: [0, 0, 1, 0, 0, 0, 0, 1, 0],
      charge: 2,
      back: 0,
    });
  });

  it("leaves to the settlement an opener whose answers left units of its credits unused", () => {
    expect(unitOutcome({ held: 0, credits: 1, lent: 4, perCredit: 5 }, [0])).toBeNull();
    expect(unitOutcome({ held: 0, credits: 1, lent: 0, perCredit: 5 }, [1, 1, 0, 1, 1])).toBeNull();
    expect(unitOutcome({ held: 2, credits: 1, lent: 4, perCredit: 5 }, [1, 1])).toBeNull();
  });
});

describe("a settlement made as its answer said", () => {
  it("charges what the answer reported; units others returned since stay in the pool", async () => {
    const acct = await createAccount({ pack: 5 });
    const stub = accountObject(acct.accountId);
    const units = { product: "ip", perCredit: 5 };
    const reserve = async (requestId: string) => {
      const hold = await stub.reserve({ requestId, amount: 1, units });
      if (!hold.ok) throw new Error("refused");
      return hold;
    };
    // A opens a credit (lending four units), B to E take them, F opens the next credit.
    const [a, b, c, d, e, f] = [await reserve("a"), ...(await Promise.all(["b", "c", "d", "e"].map(reserve)))].concat(
      await reserve("f"),
    );
    expect([a, b, f].map((h) => h!.units)).toEqual([
      { held: 0, lent: 4, perCredit: 5, prepaid: 4 },
      expect.objectContaining({ held: 1, lent: 0 }),
      { held: 0, lent: 4, perCredit: 5, prepaid: 4 },
    ]);
    // B placed nothing: its unit goes back, and the pool holds a whole credit's units.
    expect((await stub.settle(b!.reservationId, { units: [0], asAnswered: true })).charged).toBe(0);
    expect((await stub.balance("ip")).prepaid).toBe(5);
    // A answered as it reported: 1 credit, though settling without `asAnswered` would give it back from the pool.
    expect(await stub.settle(a!.reservationId, { units: [1], asAnswered: true })).toMatchObject({
      charged: 1,
      credits: [1],
      prepaid: 5,
    });
    for (const hold of [c, d, e]) await stub.settle(hold!.reservationId, { units: [1], asAnswered: true });
    expect((await stub.settle(f!.reservationId, { units: [1], asAnswered: true })).charged).toBe(1);
    // Two credits for five placing answers, and five units paid for and kept: the next five lookups cost nothing.
    expect(await stub.snapshot()).toMatchObject({ pack_credits: 3, reserved: 0 });
    expect((await stub.balance("ip")).prepaid).toBe(5);
    const next = await reserve("g");
    expect([next.granted, next.units]).toEqual([0, { held: 1, lent: 0, perCredit: 5, prepaid: 4 }]);
  });

  it("gives the credit back when the same holds settle without it (the walk awaits the settlement)", async () => {
    const acct = await createAccount({ pack: 5 });
    const stub = accountObject(acct.accountId);
    const units = { product: "ip", perCredit: 5 };
    const ids: string[] = [];
    for (const id of ["a", "b", "c", "d", "e", "f"]) {
      const hold = await stub.reserve({ requestId: id, amount: 1, units });
      ids.push(hold.ok ? hold.reservationId : "");
    }
    await stub.settle(ids[1]!, { units: [0] });
    // A is given its credit back from the pool's five units, and reports none.
    expect(await stub.settle(ids[0]!, { units: [1] })).toMatchObject({ charged: 0, credits: [0], prepaid: 0 });
    for (const id of ids.slice(2, 5)) await stub.settle(id, { units: [1] });
    expect((await stub.settle(ids[5]!, { units: [1] })).charged).toBe(1);
    expect(await stub.snapshot()).toMatchObject({ pack_credits: 4, reserved: 0 });
    expect((await stub.balance("ip")).prepaid).toBe(0);
  });
});
