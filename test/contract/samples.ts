/**
 * What the contract suite needs of a product's sample values. Each registered product names its own in
 * test/products/<name>/contract-samples.ts, found by test/contract/helpers.ts without a line there.
 */
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

/** One request a single or batch lookup route answers, by `METHOD /path` as the route declares it. */
export interface ValidRequest {
  path?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A product's contract samples: its values, and one valid request per single and batch route. */
export interface ContractSamples {
  samples: Samples;
  requests: Record<string, ValidRequest>;
}
