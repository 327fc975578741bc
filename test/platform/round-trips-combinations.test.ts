import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { LookupRoute } from "../../src/engines/lookup-declarations";
import { registeredProducts } from "../../src/products/registry";
import { admin, call, createAccount, json, type TestAccount } from "../helpers";
import { setUp, SUBJECTS, type Subject } from "../contract/helpers";
import { expectOneCall, figuresOf, logged } from "./round-trip-figures";

/**
 * One call to the account's object before every answer, for every input combination the registry declares: each
 * browser endpoint, and each set of two or more signals of a product that compares others' answers (consistency's
 * `signals`), every signal a fresh paid value of its own product. A new product, route or signal is covered here
 * without a line of its own (its paid samples come from test/contract/helpers.ts).
 */
const ORIGIN = "https://shop.example.com";
const subjectOf = (name: string): Subject => SUBJECTS.find((s) => s.registered && s.product.name === name)!;

/** Every subset of `names` with at least two members, in order. */
const pairsAndMore = (names: readonly string[]): string[][] =>
  Array.from({ length: 2 ** names.length }, (_, bits) => names.filter((_, i) => bits & (1 << i))).filter(
    (set) => set.length >= 2,
  );

/** A signal's fresh paid value, as the composed product's body takes it (an entity signal is an object). */
function signalValue(name: string): unknown {
  const value = subjectOf(name).samples.paid(1)[0];
  return name === "entity" && typeof value === "string" ? { identifier: value } : value;
}

/** The body of `route` that asks for `value`: the value itself, or under the one field of its schema that takes it. */
function bodyFor(route: LookupRoute, value: unknown, extra: Record<string, unknown> = {}): unknown {
  const schema = route.request.json as z.ZodObject | undefined;
  const fields = Object.keys(schema?.shape ?? {}).filter((field) => !(field in extra));
  const candidates = [value, ...fields.map((field) => ({ [field]: value }))].map((c) =>
    typeof c === "object" && c !== null && !Array.isArray(c) ? { ...c, ...extra } : c,
  );
  const body = candidates.find((c) => {
    const parsed = schema?.safeParse(c);
    if (!parsed?.success) return false;
    const inputs = route.inputs({ json: parsed.data, param: {}, query: {}, clientAddress: "" });
    return Array.isArray(inputs) && inputs.length === 1;
  });
  if (body === undefined) throw new Error(`no body of ${route.path} takes ${JSON.stringify(value)}`);
  return body;
}

const browserRoutes = registeredProducts().flatMap((product) =>
  (product.lookups?.routes ?? []).filter((r) => r.kind === "browser").map((route) => ({ product, route })),
);
const composed = registeredProducts().flatMap((p) => (p.signals ? [{ ...p, signals: p.signals }] : []));

let account: TestAccount;
let publishable: string;

beforeAll(async () => {
  await setUp(SUBJECTS.filter((s) => s.registered));
  account = await createAccount({ pack: 500 });
  publishable = (
    await admin<{ key: string }>("POST", `/accounts/${account.accountId}/keys/publishable`, {
      allowed_domains: ["shop.example.com"],
    })
  ).key;
});

/** Asks `path` with `body` twice (fresh values each time), then checks the route's counters. */
async function measure(path: string, bodies: unknown[], headers: Record<string, string>) {
  await admin("DELETE", "/round-trips");
  for (const body of bodies) {
    const res = await call(`/api/v1${path}`, json(body, headers));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await logged(res.response);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const figures = await figuresOf(`POST /api/v1${path}`);
  expect(figures.requests).toBe(bodies.length);
  expectOneCall(figures);
}

describe.each(browserRoutes)("the hot path of $route.path", ({ product, route }) => {
  it("makes one call to the account's object before each fresh paid answer", async () => {
    const values = subjectOf(product.name).samples.paid(2);
    const bodies = values.map((value) => bodyFor(route, value, { key: publishable }));
    await measure(route.path, bodies, { Origin: ORIGIN });
  });
});

describe.each(composed)("the hot path of $name's signal sets", (product) => {
  const route = product.lookups!.routes.find((r) => r.kind === "single")!;
  it.each(pairsAndMore(product.signals).map((set) => ({ set: set.join("+") })))(
    "makes one call to the account's object before each answer of $set",
    async ({ set }) => {
      const bodies = [0, 1].map(() => Object.fromEntries(set.split("+").map((name) => [name, signalValue(name)])));
      await measure(route.path, bodies, { Authorization: `Bearer ${account.key}` });
    },
  );
});
