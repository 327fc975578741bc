/**
 * The contract suite's table: every registered product plus the fake product (remote and local), each with sample
 * values of every kind the engines treat differently. A product added to the registry fails here until it names its
 * samples (test/products/<name>/contract-samples.ts), so the engine rules run for it the day it is registered.
 */
import { env } from "cloudflare:test";
import type { Payer } from "../../src/engines/credits/credits";
import { asProduct, type Product, type WalkOptions } from "../../src/engines/product";
import { walk } from "../../src/engines/walk/walk";
import { productNamed, registeredProducts } from "../../src/products/registry";
import { fakeProduct } from "./fake-product";
import { rand, type ContractSamples, type Kind, type Samples } from "./samples";
import { accountRows, createAccount, accountObject, type AccountOptions, type TestAccount } from "../helpers";

export { rand, type Kind, type Samples } from "./samples";

export interface Subject {
  label: string;
  product: Product;
  /** Units a credit buys in the registered product (IP: 5); `product` itself runs at one unit a credit (below). */
  unitsPerCredit: number;
  registered: boolean;
  samples: Samples;
}

export const FAKE: Samples = {
  paid: (n) => Array.from({ length: n }, (_, i) => `paid:${rand()}${i}`),
  respell: (value) => String(value).toUpperCase(),
  free: () => `free:${rand()}`,
  malformed: () => `bad-${rand()}`,
  test: () => `test:${rand()}`,
  gone: () => `gone:${rand()}`,
  counters: { paid: "good", free: "good", malformed: "bad", test: "good", gone: "bad" },
  policy: { rules: { bad: "review" }, action: "review", on: ["malformed", "gone"], rulesHit: ["bad"] },
  feedback: { marking: { outcome: "failed", kind: null }, harmless: { outcome: "delivered", kind: null } },
};

/** Each registered product's contract samples, from test/products/<name>/contract-samples.ts (by folder name). */
const CONTRACTS: Record<string, ContractSamples> = Object.fromEntries(
  Object.entries(
    import.meta.glob<ContractSamples>("../products/*/contract-samples.ts", { eager: true, import: "contract" }),
  ).map(([file, contract]) => [file.split("/").at(-2)!, contract]),
);

/** One valid request per single and batch lookup route of every registered product, by `METHOD /path`. */
export const VALID_REQUESTS = Object.assign({}, ...Object.values(CONTRACTS).map((c) => c.requests)) as Record<
  string,
  ContractSamples["requests"][string]
>;

/** The counters a value of this kind adds to. */
export const countersOf = (samples: Samples, kind: Kind): readonly string[] => [samples.counters![kind]!].flat();

function samplesFor(product: Product): Samples {
  const samples = CONTRACTS[product.name]?.samples;
  if (!samples)
    throw new Error(
      `Contract tests: add sample values for the registered product "${product.name}" in ` +
        `test/products/${product.name}/contract-samples.ts`,
    );
  if (product.bulk && !samples.counters)
    throw new Error(`Contract tests: name the bulk counter of each kind of "${product.name}" sample`);
  if (product.policy && !samples.policy)
    throw new Error(`Contract tests: give "${product.name}" policy rules and the kinds they act on`);
  if (product.feedback && !samples.feedback)
    throw new Error(`Contract tests: give "${product.name}" a marking and a harmless feedback outcome`);
  return samples;
}

/**
 * The walk, bulk and monitor rules are stated in credits, so a product whose credit buys several units (IP) runs them
 * at one unit a credit; test/contract/units.test.ts runs the units rule on the product as registered.
 */
const perCredit = (product: Product): Product =>
  product.unitsPerCredit === 1 ? product : { ...product, unitsPerCredit: 1 };

export const SUBJECTS: Subject[] = [
  ...registeredProducts().map((product) => ({
    label: product.name,
    product: perCredit(product),
    unitsPerCredit: product.unitsPerCredit,
    registered: true,
    samples: samplesFor(product),
  })),
  { label: "fake (remote)", product: asProduct(fakeProduct()), unitsPerCredit: 1, registered: false, samples: FAKE },
  {
    label: "fake (local)",
    product: asProduct(fakeProduct({ name: "fakelocal", cost: "local" })),
    unitsPerCredit: 1,
    registered: false,
    samples: FAKE,
  },
];

/** Registered products whose credit buys several units, as registered, with their samples. */
export const UNIT_SUBJECTS = registeredProducts()
  .filter((product) => product.unitsPerCredit > 1)
  .map((product) => ({ label: product.name, product, samples: samplesFor(product) }));

/** The subjects whose product has what `has` asks for. */
export const subjectsWith = (has: (product: Product) => unknown) => SUBJECTS.filter((s) => has(s.product));

/** Installs what the subjects' samples need (entity: the sample registers). */
export async function setUp(subjects: Subject[]) {
  for (const s of subjects) await s.samples.setup?.();
}

/** Finds a product by name the way queue consumers do, knowing the unregistered fake ones too. */
export const lookupWith = (product: Product) => (name: string) =>
  name === product.name ? product : productNamed(name);

export const OPTIONS: WalkOptions = { refresh: false, maxAgeSeconds: null, honorSuppressions: true, extra: {} };

export interface Funded extends TestAccount {
  payer: Payer;
}

/** A fresh account with `pack` credits and its paying key (optionally with a daily cap). */
export async function funded(
  pack: number,
  dailyCreditCap: number | null = null,
  options: AccountOptions = {},
): Promise<Funded> {
  const acct = await createAccount({ ...options, pack, key: { daily_credit_cap: dailyCreditCap } });
  return { ...acct, payer: { accountId: acct.accountId, keyId: acct.keyId, dailyCreditCap } };
}

/** Wraps a product so every value it looks up fresh is recorded by key. */
export function spied(product: Product) {
  const looked: string[] = [];
  const wrapped: Product = {
    ...product,
    lookup: async (ctx, inputs, options) => {
      looked.push(...inputs.map((input) => product.normalize(input)));
      return product.lookup(ctx, inputs, options);
    },
  };
  return { product: wrapped, looked };
}

/** One paid walk with the default options, overridable. */
export const walkOf = (
  product: Product,
  payer: Payer | null,
  inputs: unknown[],
  options: Partial<WalkOptions> = {},
  requestId = `contract-${rand()}`,
) => walk(product, { env, payer, requestId, inputs, options: { ...OPTIONS, ...options } });

/** Credits the ledger charged for the request ids `match` accepts. */
export async function ledgerCharges(
  accountId: string,
  match: (requestId: string) => boolean,
): Promise<{ rows: number; credits: number }> {
  const { rows } = await accountObject(accountId).ledger(1, 1000);
  const charges = rows.filter((r) => r.kind === "charge" && r.request_id !== null && match(r.request_id));
  return { rows: charges.length, credits: charges.reduce((sum, r) => sum - r.plan_delta - r.pack_delta, 0) };
}

/** Rows of one of the account's lists (in its object) for one product. */
export async function countRows(
  table: "repeats" | "history" | "suppressions",
  accountId: string,
  product: string,
): Promise<number> {
  const [row] = await accountRows<{ n: number }>(
    accountId,
    `SELECT COUNT(*) AS n FROM ${table} WHERE product = ?`,
    product,
  );
  return row?.n ?? 0;
}

/** An env whose JOBS queue only records what is sent, so the test drives bulk runs and deliveries itself. */
export function capturedQueue() {
  const sent: unknown[] = [];
  const JOBS = {
    send: async (body: unknown) => void sent.push(body),
    sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages.map((m) => m.body)),
  };
  return { env: { ...env, JOBS } as unknown as Env, sent };
}

export const DAY_MS = 86_400_000;
