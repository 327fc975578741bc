/**
 * The suppression list and history routes of every product that has them, over HTTP as a customer calls them (and
 * checked against the OpenAPI document by `call`): add, list, remove by value and by id; the history of answers.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { anotherKey, bearer, call, json } from "../helpers";
import { funded, setUp, subjectsWith } from "./helpers";

const SUPPRESSING = subjectsWith((p) => p.suppressions).filter((s) => s.registered);
const REMEMBERING = subjectsWith((p) => p.history && p.bulk).filter((s) => s.registered);
beforeAll(() => setUp([...SUPPRESSING, ...REMEMBERING]));

describe.each(SUPPRESSING)("the suppression list of $label over HTTP", ({ product, samples }) => {
  it("adds values, lists them, and removes one by value and one by id", async () => {
    const acct = await funded(0);
    const field = product.suppressions!.listField;
    const base = `/api/v1/${product.name}/suppressions`;
    const [first, second] = samples.paid(2);
    const added = await call(base, json({ [field]: [first, second] }, { Authorization: `Bearer ${acct.key}` }));
    expect([added.status, added.body.data]).toMatchObject([201, { added: 2, invalid: [] }]);
    const listed = await call<{ suppressions: { id: number }[] }>(base, bearer(acct.key));
    expect(listed.body.data.suppressions).toHaveLength(2);
    // A second key for the rest: a key makes at most 5 requests a second.
    const key = await anotherKey(acct);
    const byValue = await call(base, json({ [field]: [first] }, { Authorization: `Bearer ${key}` }, "DELETE"));
    expect(byValue.body.data).toEqual({ removed: 1 });
    const [left] = (await call<{ suppressions: { id: number }[] }>(base, bearer(key))).body.data.suppressions;
    const byId = await call(`${base}/${left!.id}`, { method: "DELETE", ...bearer(key) });
    expect(byId.status).toBe(200);
    expect((await call<{ suppressions: unknown[] }>(base, bearer(key))).body.data.suppressions).toEqual([]);
  });
});

describe.each(REMEMBERING)("the history of $label over HTTP", ({ product, samples }) => {
  it("lists the account's answers after a batch", async () => {
    const acct = await funded(2);
    const batch = await call(
      `/api/v1/${product.name}/batch`,
      json({ [product.bulk!.field]: samples.paid(1) }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(batch.status).toBe(200);
    const history = await call<{ lookups: unknown[] }>(`/api/v1/${product.name}/history`, bearer(acct.key));
    expect([history.status, history.body.data.lookups.length]).toEqual([200, 1]);
  });
});
