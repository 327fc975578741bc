/**
 * The account's object answers a request's first call as a value: what was asked, or the rate limit that refused the
 * request it carried (src/engines/credits/credits.ts `accountEntry`). Nothing is thrown and caught back; each surface
 * renders the refusal its own way (REST: 429 with Retry-After; the tool protocol and the dashboard: RATE_LIMITED).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { accountEntry } from "../../src/engines/credits/credits";
import { Admission, limitHit } from "../../src/limits/admission";
import { admitPending } from "../../src/limits/admit";
import { createAccount } from "../helpers";

type Account = Awaited<ReturnType<typeof createAccount>>;

/** A request of the key's, its 5-a-second limit pending until its first call to the account's object. */
const admissionOf = (acct: Account, n: number) =>
  new Admission(acct.accountId, [limitHit("key", acct.keyId)], {
    requestId: `req_entry_${crypto.randomUUID()}_${n}`,
    accountId: acct.accountId,
    keyId: acct.keyId,
    method: "GET",
    path: "/api/v1/account",
  });

describe("the account object's call answers refusals as values", () => {
  it("answers the snapshot of the key's sixth request in a second with the refusal and when to retry", async () => {
    const acct = await createAccount();
    const answers = [];
    for (let n = 0; n < 6; n++) answers.push(await accountEntry(env, acct.accountId, admissionOf(acct, n)).snapshot());
    expect(answers.slice(0, 5).map((a) => "value" in a)).toEqual([true, true, true, true, true]);
    expect(answers[5]).toEqual({
      limited: { message: "Over 5 requests per second for this key.", retryAfterSeconds: expect.any(Number) },
    });
    const limited = answers[5] as { limited: { retryAfterSeconds: number } };
    expect(limited.limited.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it("admits pending requests as values: null while under the limit, RATE_LIMITED past it", async () => {
    const acct = await createAccount();
    const refusals = [];
    for (let n = 0; n < 6; n++) refusals.push(await admitPending(env, admissionOf(acct, n)));
    expect(refusals.slice(0, 5)).toEqual([null, null, null, null, null]);
    expect(refusals[5]).toMatchObject({ code: "RATE_LIMITED", message: "Over 5 requests per second for this key." });
  });

  it("makes a plain call once the request was admitted, and admitting it again asks nothing", async () => {
    const acct = await createAccount();
    const admission = admissionOf(acct, 0);
    const entry = accountEntry(env, acct.accountId, admission);
    expect("value" in (await entry.admit())).toBe(true);
    expect(admission.pending).toBe(false);
    expect(await admitPending(env, admission)).toBeNull();
    expect(await entry.snapshot()).toHaveProperty("value.available");
  });
});
