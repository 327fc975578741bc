import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createAccount, creditsStub, json } from "../helpers";
import { setUp, SUBJECTS } from "../contract/helpers";

/**
 * The hot path of every registered product's single lookup, measured by the Worker's round-trip counters
 * (src/platform/trace.ts) over a few fresh paid lookups of one account, its first included (its key not cached yet,
 * its object not knowing its policy versions): what each makes before its answer, and that none of them writes to
 * the D1 primary before or after it, in the request or in its deferred work (repeat markers, history and suppressions
 * live in the account's object; the request log and email's shared mailbox answers go through the queue, whose
 * consumers' writes are no request's).
 */
const BEFORE: Record<string, { do: number; d1_primary: number }> = {
  // One call to the account's object (`begin`); the settlement and list writes follow the answer.
  email: { do: 1, d1_primary: 0 },
  entity: { do: 1, d1_primary: 0 },
  address: { do: 1, d1_primary: 0 },
  phone: { do: 1, d1_primary: 0 },
  // IP too: `begin` (which also answers the account's feedback on the address, which the answer reports); its one
  // hold decides which item opens a credit when the lookup places the address
  // (durable-objects/account/unit-outcome.ts), so the settlement follows the answer, for a lookup that opens a credit
  // as for one that uses a prepaid unit.
  ip: { do: 1, d1_primary: 0 },
};
/** A batch of three fresh values: the same one call (`begin` reads the three values' rows and holds for all three). */
const BATCH: Record<string, { do: number; d1_primary: number }> = {
  email: { do: 1, d1_primary: 0 },
  entity: { do: 1, d1_primary: 0 },
  address: { do: 1, d1_primary: 0 },
  phone: { do: 1, d1_primary: 0 },
  // The batch's three values use prepaid units of the credit the first lookup bought: one hold, no credit bought.
  ip: { do: 1, d1_primary: 0 },
};
const SINGULAR: Record<string, string> = {
  emails: "email",
  identifiers: "identifier",
  addresses: "address",
  ips: "ip",
  phones: "phone",
};
const SINGLES = SUBJECTS.filter((s) => s.registered && s.samples.batch);
const PAID = 3;

type Kinds = Record<"do" | "d1_primary", { mean: number; max: number }>;
interface RouteFigures {
  route: string;
  requests: number;
  before_answer: Kinds;
  d1_primary_writes: Record<"before_answer" | "after_answer", { mean: number; max: number }>;
}

/** Waits until the request's record is stored by the queue's consumer, so its after-answer work has run. */
async function logged(response: Response) {
  const id = response.headers.get("X-Request-Id")!;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await env.DB.prepare("SELECT 1 FROM request_log WHERE request_id = ?").bind(id).first()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`request ${id} was never recorded`);
}

beforeAll(() => setUp(SINGLES));

describe.each(SINGLES)("the hot path of $label's single lookup", ({ product, samples, unitsPerCredit }) => {
  const title = `makes ${JSON.stringify(BEFORE[product.name])} before each fresh paid answer, the first included`;
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
    const { routes } = await admin<{ routes: RouteFigures[] }>("GET", "/round-trips");
    const figures = routes.find((r) => r.route === `POST ${path}`)!;
    expect(figures.requests).toBe(measured + 1);
    expect({ do: figures.before_answer.do.max, d1_primary: figures.before_answer.d1_primary.max }).toEqual(
      BEFORE[product.name],
    );
    // Nothing writes the D1 primary, email included: its shared mailbox answers are a queue message.
    expect(figures.d1_primary_writes).toEqual({
      before_answer: { mean: 0, max: 0 },
      after_answer: { mean: 0, max: 0 },
    });
  });
});

describe.each(SINGLES)("the hot path of $label's batch", ({ product, samples, unitsPerCredit }) => {
  it(`makes ${JSON.stringify(BATCH[product.name])} before a batch of three fresh paid values`, async () => {
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
    const { routes } = await admin<{ routes: RouteFigures[] }>("GET", "/round-trips");
    const figures = routes.find((r) => r.route === `POST ${path}`)!;
    expect(figures.requests).toBe(1);
    expect({ do: figures.before_answer.do.max, d1_primary: figures.before_answer.d1_primary.max }).toEqual(
      BATCH[product.name],
    );
    expect(figures.d1_primary_writes).toEqual({
      before_answer: { mean: 0, max: 0 },
      after_answer: { mean: 0, max: 0 },
    });
  });
});

/** Consistency has no batch route: its single lookup (`POST /consistency`, the signals as the body) on its own. */
describe("the hot path of consistency's single lookup", () => {
  const subject = SUBJECTS.find((s) => s.product.name === "consistency")!;
  beforeAll(() => setUp([subject]));

  it("makes {do: 1, d1_primary: 0} before each fresh paid answer, the first included, no primary write", async () => {
    const acct = await createAccount({ pack: 50 });
    await admin("DELETE", "/round-trips");
    for (const value of subject.samples.paid(PAID + 1)) {
      const res = await call("/api/v1/consistency", json(value, { Authorization: `Bearer ${acct.key}` }));
      expect(res.status).toBe(200);
      expect((res.body.meta as { credits_used: number }).credits_used).toBe(1);
      await logged(res.response);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { routes } = await admin<{ routes: RouteFigures[] }>("GET", "/round-trips");
    const figures = routes.find((r) => r.route === "POST /api/v1/consistency")!;
    expect(figures.requests).toBe(PAID + 1);
    expect({ do: figures.before_answer.do.max, d1_primary: figures.before_answer.d1_primary.max }).toEqual({
      do: 1,
      d1_primary: 0,
    });
    expect(figures.d1_primary_writes).toEqual({
      before_answer: { mean: 0, max: 0 },
      after_answer: { mean: 0, max: 0 },
    });
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
    const before = await creditsStub(acct.accountId).snapshot();
    await admin("DELETE", "/round-trips");
    const repeat = await ask(values[0]);
    expect(repeat.credits_used).toBe(0);
    if (unitsPerCredit > 1) expect(repeat.ip_lookups_prepaid).toBe(0);
    const { routes } = await admin<{ routes: RouteFigures[] }>("GET", "/round-trips");
    const figures = routes.find((r) => r.route === `POST ${path}`)!;
    expect([figures.requests, figures.before_answer.do.max, figures.before_answer.d1_primary.max]).toEqual([1, 1, 0]);
    expect(await creditsStub(acct.accountId).snapshot()).toMatchObject({
      pack_credits: before.pack_credits,
      reserved: 0,
    });
    expect(repeat.credits_remaining).toBe(before.available);
  });
});
