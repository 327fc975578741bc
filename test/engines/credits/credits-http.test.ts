import { describe, expect, it } from "vitest";
import { anotherKey, createAccount, accountObject, lookupEmail } from "../../helpers";

describe("credits under concurrent paid requests", () => {
  it(
    "charges exactly 10 of 50 concurrent POST /email on 10 credits; the other 40 answer 402 " + "INSUFFICIENT_CREDITS",
    async () => {
      const acct = await createAccount({ pack: 10 });
      // Ten keys of the account, five requests each: all 50 fit under the 5-per-second limit of every key.
      const keys = [acct.key, ...(await Promise.all(Array.from({ length: 9 }, () => anotherKey(acct))))];
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => lookupEmail(keys[i % 10]!, { email: `user${i}@concurrent.example` })),
      );
      const paid = responses.filter((r) => r.status === 200);
      expect(paid).toHaveLength(10);
      expect(paid.every((r) => r.body.meta.credits_used === 1)).toBe(true);
      const refused = responses.filter((r) => r.status === 402);
      expect(refused).toHaveLength(40);
      expect(new Set(refused.map((r) => r.body.error.code))).toEqual(new Set(["INSUFFICIENT_CREDITS"]));
      const snapshot = await accountObject(acct.accountId).snapshot();
      expect(snapshot).toMatchObject({ pack_credits: 0, reserved: 0 });
      const charges = (await accountObject(acct.accountId).ledger(1, 100)).rows.filter((r) => r.kind === "charge");
      expect(charges).toHaveLength(10);
      expect(new Set(charges.map((r) => r.request_id)).size).toBe(10);
    },
  );
});
