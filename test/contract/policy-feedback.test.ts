/**
 * Sending policy and delivery feedback, once per product that declares them (docs/adding-a-product.md): every answer
 * of every kind carries the account's decision and costs what it costs without one; feedback that suppresses a value
 * makes later list answers the stored answer, free, and a single lookup does not lift it.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { receiveFeedback } from "../../src/engines/lists/feedback";
import { writePolicy } from "../../src/engines/policy/store";
import type { Product } from "../../src/engines/product";
import { funded, setUp, subjectsWith, walkOf, type Kind, type Samples } from "./helpers";

const decisionOf = (data: unknown) => (data as { policy?: unknown }).policy;

/** One value of each kind the samples have, in a fixed order. */
function mix(samples: Samples): { kind: Kind; value: unknown }[] {
  const values: { kind: Kind; value: unknown }[] = [
    { kind: "paid", value: samples.paid(1)[0] },
    { kind: "free", value: samples.free() },
    { kind: "malformed", value: samples.malformed() },
  ];
  if (samples.test) values.push({ kind: "test", value: samples.test() });
  if (samples.gone) values.push({ kind: "gone", value: samples.gone() });
  return values;
}

const POLICED = subjectsWith((p) => p.policy);
const FED = subjectsWith((p) => p.feedback);
beforeAll(() => setUp([...POLICED, ...FED]));

describe.each(POLICED)("sending policy: $label", ({ product, samples }) => {
  const policy = samples.policy!;

  it("stamps policy: null on every answer of an account without a policy, and of no account", async () => {
    const acct = await funded(5);
    const values = mix(samples).map((v) => v.value);
    const run = await walkOf(product, acct.payer, values);
    expect(run.items.map((i) => decisionOf(i.data))).toEqual(values.map(() => null));
    const unpaid = await walkOf(product, null, [samples.malformed()]);
    expect(decisionOf(unpaid.items[0]!.data)).toBeNull();
  });

  it("decides every kind of answer, fresh, repeated or suppressed, and never changes what it costs", async () => {
    const plain = await funded(10);
    const policed = await funded(10);
    const rules = policy.rules as Record<string, unknown>;
    await writePolicy({ env, accountId: policed.accountId, product: product.name, rules, now: Date.now() });
    const values = mix(samples);
    const expected = values.map((v) =>
      policy.on.includes(v.kind)
        ? { action: policy.action, rules_hit: policy.rulesHit }
        : { action: "send", rules_hit: [] },
    );
    // The first walk answers fresh; the second answers repeats and suppressed values from what the first stored.
    for (const round of ["fresh", "stored"]) {
      const [without, withPolicy] = await Promise.all(
        [plain, policed].map((acct) =>
          walkOf(
            product,
            acct.payer,
            values.map((v) => v.value),
          ),
        ),
      );
      expect(
        withPolicy!.items.map((i) => decisionOf(i.data)),
        round,
      ).toEqual(expected);
      expect(
        withPolicy!.items.map((i) => i.meta),
        round,
      ).toEqual(without!.items.map((i) => i.meta));
      expect(withPolicy!.creditsUsed, round).toBe(without!.creditsUsed);
    }
  });
});

/** Feedback that suppresses (email) or that the product reads into its own answers (IP). */
const SUPPRESSING = FED.filter((s) => s.product.feedback!.suppresses);
const ANSWERING = FED.filter((s) => !s.product.feedback!.suppresses);
const event = (value: unknown, o: { outcome: string; kind: string | null }) => ({
  value,
  ...o,
  occurredAt: null,
  detail: {},
});
const record = (product: Product, accountId: string, events: ReturnType<typeof event>[]) =>
  receiveFeedback(env, product, { accountId, source: "api", events, ignored: 0, now: Date.now() });
const sourcesOf = (data: unknown) => (data as { sources: { dataset: string }[] }).sources.map((s) => s.dataset);

describe.each(SUPPRESSING)("delivery feedback that suppresses: $label", ({ product, samples }) => {
  const outcomes = samples.feedback!;

  it(
    "suppresses a value on a suppressing outcome only; later list answers are the stored answer, free, citing " +
      "delivery-feedback",
    async () => {
      const acct = await funded(5);
      const [gone, kept] = samples.paid(2);
      const received = await record(product, acct.accountId, [
        event(gone, outcomes.marking),
        event(kept, outcomes.harmless),
        event(samples.malformed(), outcomes.harmless),
      ]);
      expect(received).toEqual({ recorded: 2, suppressed: 1, invalid: [2] });
      const run = await walkOf(product, acct.payer, [gone, kept]);
      expect(run.items.map((i) => [i.meta.suppressed, i.meta.credits_used])).toEqual([
        [true, 0],
        [false, 1],
      ]);
      expect(sourcesOf(run.items[0]!.data)).toContain("delivery-feedback");
    },
  );

  it("keeps a feedback suppression through a single lookup that answers fresh", async () => {
    const acct = await funded(5);
    const [value] = samples.paid(1);
    await record(product, acct.accountId, [event(value, outcomes.marking)]);
    const single = await walkOf(product, acct.payer, [value], { honorSuppressions: false });
    expect(single.items[0]!.meta.suppressed).toBe(false);
    const later = await walkOf(product, acct.payer, [value]);
    expect(later.items[0]!.meta.suppressed).toBe(true);
  });
});

describe.each(ANSWERING)("feedback read into answers: $label", ({ product, samples }) => {
  const outcomes = samples.feedback!;

  it(
    "suppresses nothing; every later answer of the account, single lookups included, cites delivery-feedback, at " +
      "the price it has without feedback",
    async () => {
      const [reporting, other] = await Promise.all([funded(5), funded(5)]);
      const [marked, kept, untouched] = samples.paid(3);
      const received = await record(product, reporting.accountId, [
        event(marked, outcomes.marking),
        event(kept, outcomes.harmless),
        event(samples.malformed(), outcomes.harmless),
      ]);
      expect(received).toEqual({ recorded: 2, suppressed: 0, invalid: [2] });
      const [run, plain] = await Promise.all(
        [reporting, other].map((acct) => walkOf(product, acct.payer, [marked, kept, untouched])),
      );
      expect(run!.items.map((i) => i.meta)).toEqual(plain!.items.map((i) => i.meta));
      expect(run!.items.map((i) => sourcesOf(i.data).includes("delivery-feedback"))).toEqual([true, true, false]);
      expect(plain!.items.map((i) => sourcesOf(i.data).includes("delivery-feedback"))).toEqual([false, false, false]);
      expect(run!.items[0]!.data).not.toEqual(plain!.items[0]!.data);
      expect(run!.items[2]!.data).toEqual(plain!.items[2]!.data);
      const single = await walkOf(product, reporting.payer, [marked], { honorSuppressions: false });
      expect([
        single.items[0]!.meta.suppressed,
        sourcesOf(single.items[0]!.data).includes("delivery-feedback"),
      ]).toEqual([false, true]);
    },
  );
});
