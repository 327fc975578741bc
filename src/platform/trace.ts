import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Per-request storage round trips and product time, folded into per-isolate figures per route (GET
 * /admin/v1/round-trips, docs/operations.md). This sits on the hot path it measures, so a request costs one small
 * trace object and a few additions: no strings built, no JSON, no timers.
 */

/** Where a round trip goes; the index into a trace's counters. */
export const DURABLE_OBJECT = 0;
/** A D1 query the database's primary answers (every write, and reads outside a read-replica session). */
export const D1_PRIMARY = 1;
/** A read in a D1 Sessions API session, which a read replica near the caller may answer. */
export const D1_REPLICA = 2;
export const QUEUE = 3;
export const R2 = 4;
export type RoundTripKind = typeof DURABLE_OBJECT | typeof D1_PRIMARY | typeof D1_REPLICA | typeof QUEUE | typeof R2;

const KIND_NAMES = ["do", "d1_primary", "d1_replica", "queue", "r2"] as const;
type KindName = (typeof KIND_NAMES)[number];
/** Counters after the answer sit at kind + AFTER. */
const AFTER = KIND_NAMES.length;
/**
 * Then the D1 primary queries that write (a subset of d1_primary): before the answer at WRITES, after at WRITES + 1.
 */
const WRITES = 2 * AFTER;
const SLOTS = WRITES + 2;

/** Samples of (total ms, product ms) kept per route: a uniform sample (reservoir) of every request since the reset. */
export const SAMPLE_SIZE = 2_048;

class RequestTrace {
  readonly startedAt = performance.now();
  /** Before the answer: [do, d1_primary, d1_replica, queue, r2]; then the same after the answer. */
  readonly counts: number[] = new Array(SLOTS).fill(0);
  answered = false;
  /** Not folded into the figures (the round-trips routes themselves). */
  ignored = false;
  /** The route's figures once answered: work after the answer adds to them as it happens. */
  totals: RouteTotals | null = null;
  productMs = 0;
  /** Product lookups in flight (a batch runs several): their time counts once, as the union of the intervals. */
  productOpen = 0;
  productSince = 0;
}

interface RouteTotals {
  method: string;
  path: string;
  requests: number;
  sums: number[];
  maxes: number[];
  totalMs: number[];
  productMs: number[];
}

const storage = new AsyncLocalStorage<RequestTrace>();
let routes = new Map<string, Map<string, RouteTotals>>();
let since = Date.now();

/** Runs `handler` with a fresh trace that every promise it starts (waitUntil work included) still sees. */
export function runTraced<A extends unknown[], R>(handler: (...args: A) => R, ...args: A): R {
  return storage.run(new RequestTrace(), handler, ...args);
}

/**
 * Counts one round trip of the current request (nothing outside a request: queue consumers, crons); `write`: a D1
 * primary query that writes (INSERT, UPDATE, DELETE, a batch holding one), also counted on its own.
 */
export function countRoundTrip(kind: RoundTripKind, write = false): void {
  const trace = storage.getStore();
  if (!trace) return;
  const counts = trace.counts;
  if (!trace.answered) {
    counts[kind] = counts[kind]! + 1;
    if (write) counts[WRITES] = counts[WRITES]! + 1;
    return;
  }
  addAfter(trace, kind + AFTER);
  if (write) addAfter(trace, WRITES + 1);
}

function addAfter(trace: RequestTrace, slot: number) {
  const n = (trace.counts[slot] = trace.counts[slot]! + 1);
  const totals = trace.totals;
  if (!totals) return;
  totals.sums[slot] = totals.sums[slot]! + 1;
  if (n > totals.maxes[slot]!) totals.maxes[slot] = n;
}

/** Runs one product lookup, adding its wall time (before the answer) to the request's product time. */
export async function timeProduct<T>(work: () => Promise<T>): Promise<T> {
  const trace = storage.getStore();
  if (!trace) return work();
  if (trace.productOpen++ === 0) trace.productSince = performance.now();
  try {
    return await work();
  } finally {
    if (--trace.productOpen === 0 && !trace.answered) trace.productMs += performance.now() - trace.productSince;
  }
}

/** Leaves the current request out of the figures. */
export function untraced(): void {
  const trace = storage.getStore();
  if (trace) trace.ignored = true;
}

/**
 * The current request's answer is decided (`path`: the matched route pattern): what it did so far is "before the
 * answer", and everything from now on (the request log, waitUntil work) is "after".
 */
export function markAnswered(method: string, path: string): void {
  const trace = storage.getStore();
  if (!trace || trace.answered) return;
  trace.answered = true;
  const now = performance.now();
  if (trace.productOpen > 0) trace.productMs += now - trace.productSince;
  if (trace.ignored) return;
  const totals = totalsFor(method, path);
  trace.totals = totals;
  const n = ++totals.requests;
  for (const kind of [...KIND_NAMES.keys(), WRITES]) {
    const count = trace.counts[kind]!;
    totals.sums[kind] = totals.sums[kind]! + count;
    if (count > totals.maxes[kind]!) totals.maxes[kind] = count;
  }
  const slot = n <= SAMPLE_SIZE ? n - 1 : Math.floor(Math.random() * n);
  if (slot < SAMPLE_SIZE) {
    totals.totalMs[slot] = now - trace.startedAt;
    totals.productMs[slot] = trace.productMs;
  }
}

function totalsFor(method: string, path: string): RouteTotals {
  let byPath = routes.get(method);
  if (!byPath) routes.set(method, (byPath = new Map()));
  let totals = byPath.get(path);
  if (!totals) {
    totals = {
      method,
      path,
      requests: 0,
      sums: new Array(SLOTS).fill(0),
      maxes: new Array(SLOTS).fill(0),
      totalMs: [],
      productMs: [],
    };
    byPath.set(path, totals);
  }
  return totals;
}

/** Forgets every figure; requests still finishing add their late work to the figures they started in. */
export function resetRoundTrips(): void {
  routes = new Map();
  since = Date.now();
}

const round = (n: number) => Math.round(n * 1_000) / 1_000;

function percentiles(values: number[]) {
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) =>
    sorted.length ? round(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!) : null;
  return { p50: at(0.5), p90: at(0.9) };
}

type Counters = Record<KindName, { mean: number; max: number }>;

const mean = (totals: RouteTotals, slot: number) => ({
  mean: round(totals.sums[slot]! / totals.requests),
  max: totals.maxes[slot]!,
});

function counters(totals: RouteTotals, offset: number): Counters {
  const entries = KIND_NAMES.map((name, kind) => [
    name,
    { mean: round(totals.sums[kind + offset]! / totals.requests), max: totals.maxes[kind + offset]! },
  ]);
  return Object.fromEntries(entries) as Counters;
}

/** The figures since the last reset, per method and matched route pattern. */
export function roundTrips() {
  const list = [...routes.values()].flatMap((byPath) => [...byPath.values()]);
  return {
    since: new Date(since).toISOString(),
    sample_size: SAMPLE_SIZE,
    routes: list
      .map((t) => {
        const samples = t.totalMs.length;
        return {
          route: `${t.method} ${t.path}`,
          requests: t.requests,
          before_answer: counters(t, 0),
          after_answer: counters(t, AFTER),
          d1_primary_writes: { before_answer: mean(t, WRITES), after_answer: mean(t, WRITES + 1) },
          samples,
          total_ms: percentiles(t.totalMs),
          product_ms: percentiles(t.productMs),
          other_ms: percentiles(t.totalMs.map((ms, i) => ms - t.productMs[i]!)),
        };
      })
      .sort((a, b) => a.route.localeCompare(b.route)),
  };
}
