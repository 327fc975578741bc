/**
 * The contract suite's table: every registered product plus the fake product (remote and local), each with sample
 * values of every kind the engines treat differently. A product added to the registry fails here until it names its
 * samples, so the engine rules run for it the day it is registered.
 */
import { env } from "cloudflare:test";
import type { Payer } from "../../src/engines/credits/credits";
import { asProduct, type Product, type WalkOptions } from "../../src/engines/product";
import { walk } from "../../src/engines/walk/walk";
import { productNamed, registeredProducts } from "../../src/products/registry";
import { installAddressData } from "../address-samples";
import { installSamples, makeLei, sampleRows } from "../entity-samples";
import { installIpSamples, placedIps, privateIp } from "../ip-samples";
import { digits, installPhoneSamples, ukMobile } from "../phone-samples";
import { fakeProduct } from "./fake-product";
import { accountRows, createAccount, creditsStub, type AccountOptions, type TestAccount } from "../helpers";

/** A short random suffix: values are unique per call, so files sharing the loopback fixtures never race on counts. */
export const rand = () => crypto.randomUUID().replaceAll("-", "").slice(0, 12);

export type Kind = "paid" | "free" | "malformed" | "test" | "gone";

export interface Samples {
  /** `n` distinct values, each answered fresh for one credit (one unit). */
  paid(n: number): unknown[];
  /** The same value written differently: the same key. */
  respell(value: unknown): unknown;
  /** A value answered fresh for nothing. */
  free(): unknown;
  malformed(): unknown;
  /** A documented test value (canonical answer, no dataset), when the product has them. */
  test: (() => unknown) | null;
  /** A value whose fresh answer joins the suppression list, when the product has one. */
  gone: (() => unknown) | null;
  /**
   * Products with `policy`: rules that give `action` (with `rulesHit`) to exactly the kinds `on` names, `send` to the
   * rest.
   */
  policy?: { rules: unknown; action: "review" | "block"; on: readonly Kind[]; rulesHit: string[] };
  /**
   * Products with `feedback`: an outcome that marks a value (suppresses it, or for a product without `suppresses` is
   * reported in its later answers), and one that does not.
   */
  feedback?: { marking: { outcome: string; kind: string | null }; harmless: { outcome: string; kind: string | null } };
  /** The bulk counter each kind of value adds to (products with `bulk`), one per counted column (address: two). */
  counters?: Partial<Record<Kind, string | readonly string[]>>;
  /** The HTTP batch route of a registered product. */
  batch?: { path: string; field: string };
  setup?(): Promise<void>;
}

export interface Subject {
  label: string;
  product: Product;
  /** Units a credit buys in the registered product (IP: 5); `product` itself runs at one unit a credit (below). */
  unitsPerCredit: number;
  registered: boolean;
  samples: Samples;
}

const EMAIL: Samples = {
  paid: (n) => Array.from({ length: n }, (_, i) => `p${rand()}${i}@catchall.example`),
  respell: (value) => `Copy <${String(value).toUpperCase()}>`,
  free: () => `x${rand()}@nomail.example`,
  malformed: () => `bad-${rand()}`,
  test: () => `deliverable+${rand()}@service.test`,
  gone: () => `nobody${rand()}@acme.example`,
  counters: {
    paid: "risky",
    free: "undeliverable",
    malformed: "undeliverable",
    test: "deliverable",
    gone: "undeliverable",
  },
  policy: {
    rules: { deliverable: { risky: "block" } },
    action: "block",
    on: ["paid"],
    rulesHit: ["deliverable.risky"],
  },
  feedback: { marking: { outcome: "bounced", kind: "hard" }, harmless: { outcome: "bounced", kind: "soft" } },
  batch: { path: "/api/v1/email/batch", field: "emails" },
};

const ENTITY: Samples = {
  paid: (n) =>
    sampleRows("gleif-lei")
      .slice(0, n)
      .map((row) => row.identifier),
  respell: (value) => ` ${String(value).toLowerCase()} `,
  free: () => makeLei(`FREE${rand().toUpperCase()}00`),
  malformed: () => `bad-${rand()}`,
  test: null,
  gone: null,
  batch: { path: "/api/v1/entity/batch", field: "identifiers" },
  setup: async () => void (await installSamples()),
};

/** Verified US addresses differ by line 1; an Italian one can only be format-checked; a four-digit ZIP is malformed. */
const ADDRESS: Samples = {
  paid: (n) =>
    Array.from({ length: n }, (_, i) => ({
      line1: `${i} ${rand()} Main St`,
      locality: "Springfield",
      region: "IL",
      postcode: "62701",
      country: "US",
    })),
  respell: (value) => {
    const a = value as Record<string, string>;
    return { ...a, line1: a.line1!.toUpperCase(), locality: "springfield", postcode: " 62701" };
  },
  free: () => ({ line1: `Via ${rand()} 1`, locality: "Roma", postcode: "00184", country: "IT" }),
  malformed: () => ({
    line1: `${rand()} Main St`,
    locality: "Springfield",
    region: "IL",
    postcode: "6270",
    country: "US",
  }),
  test: () => ({ line1: "verified", locality: rand(), country: "ZZ" }),
  gone: null,
  counters: {
    paid: ["valid", "low"],
    free: ["valid", "medium"],
    malformed: ["invalid", "high"],
    test: ["valid", "low"],
  },
  policy: {
    rules: { verification: { format_only: "review" } },
    action: "review",
    on: ["free"],
    rulesHit: ["verification.format_only"],
  },
  feedback: { marking: { outcome: "returned", kind: null }, harmless: { outcome: "delivered", kind: null } },
  batch: { path: "/api/v1/address/batch", field: "addresses" },
  setup: async () => void (await installAddressData()),
};

/** Placed public addresses cost a unit; private ones are answered free; 192.0.2.0/24 are the test values. */
const IP: Samples = {
  paid: placedIps,
  respell: (value) => `::ffff:${String(value)}`,
  free: privateIp,
  malformed: () => `not-an-ip-${rand()}`,
  test: () => "192.0.2.1",
  gone: null,
  counters: { paid: "low", free: "medium", malformed: "high", test: "low" },
  // Reported fraud shows in every later answer (not suppressed); `legit` adds nothing to the risk.
  feedback: { marking: { outcome: "fraud", kind: null }, harmless: { outcome: "legit", kind: null } },
  batch: { path: "/api/v1/ip/batch", field: "ips" },
  setup: installIpSamples,
};

/** UK mobiles from the committed sample cost a credit; a number cut short is invalid and free. */
const PHONE: Samples = {
  paid: (n) => Array.from({ length: n }, () => ukMobile()),
  respell: (value) => `tel:${String(value).slice(0, 3)} (${String(value).slice(3, 7)}) ${String(value).slice(7)}`,
  // Possible but not valid (the drama range outside the test numbers): answered from the plan alone, free.
  free: () => `+447700950${digits(3)}`,
  malformed: () => `bad-${rand()}`,
  test: () => "+447700900000",
  // No phone answer joins the list by itself (delivery feedback adds `undelivered`): the manual list is tested.
  gone: null,
  counters: { paid: ["valid", "mobile"], free: "invalid", malformed: "invalid", test: ["valid", "mobile"] },
  policy: {
    rules: { reasons: { invalid_number: "block" } },
    action: "block",
    on: ["free", "malformed"],
    rulesHit: ["reasons.invalid_number"],
  },
  feedback: { marking: { outcome: "failed", kind: "permanent" }, harmless: { outcome: "failed", kind: "temporary" } },
  batch: { path: "/api/v1/phone/batch", field: "phones" },
  setup: installPhoneSamples,
};

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

/**
 * A UK mobile with a London address agrees (1 credit); with a private IP nothing is decided (free); two malformed
 * signals are answered locally; the phone and IP test values disagree on country (docs/consistency.md, "Test values").
 */
const CONSISTENCY: Samples = {
  paid: (n) =>
    Array.from({ length: n }, () => ({
      phone: ukMobile(),
      address: { line1: "10 Downing Street", locality: "London", postcode: "SW1A 2AA", country: "GB" },
    })),
  respell: (value) => {
    const set = value as { phone: string };
    return { ...set, phone: PHONE.respell(set.phone) };
  },
  free: () => ({ phone: ukMobile(), ip: privateIp() }),
  malformed: () => ({ phone: `bad-${rand()}`, ip: `not-an-ip-${rand()}` }),
  test: () => ({ phone: "+447700900000", ip: "192.0.2.1" }),
  gone: null,
  counters: { paid: "consistent", free: "undecided", malformed: "undecided", test: "mixed" },
  setup: async () => {
    await installPhoneSamples();
    await installIpSamples();
    await installAddressData();
  },
};

const REGISTERED_SAMPLES: Record<string, Samples> = {
  email: EMAIL,
  entity: ENTITY,
  address: ADDRESS,
  ip: IP,
  phone: PHONE,
  consistency: CONSISTENCY,
};

/** The counters a value of this kind adds to. */
export const countersOf = (samples: Samples, kind: Kind): readonly string[] => [samples.counters![kind]!].flat();

function samplesFor(product: Product): Samples {
  const samples = REGISTERED_SAMPLES[product.name];
  if (!samples)
    throw new Error(
      `Contract tests: add sample values for the registered product "${product.name}" in test/contract/helpers.ts`,
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
  const { rows } = await creditsStub(accountId).ledger(1, 1000);
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
