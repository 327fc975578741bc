import type { z } from "zod";
import type { PolicyShape } from "../policy/policy";
import type { Looked, Price, ProductContext, ProductName, WalkOptions } from "./context";
import type { HistoryShape } from "./shapes";

/**
 * A product's roles in the paid walk (src/engines/walk/), each an interface of the members one concern reads: who the
 * product is, how its values are keyed and answered, billed, suppressed, recorded and stamped with a policy. An engine
 * takes the role it uses; `WalkProduct` is all of them, what the walk and the lookup service take.
 */

/** Who the product is: every engine names it, and validates its values with `input`. */
export interface ProductIdentity<In = unknown> {
  /** The product's key in the registry (src/products/registry.ts), its path segment and its event names' stem. */
  name: ProductName;
  /** The key scope that reaches this product's lookups and routes (its registry name). */
  scope: string;
  /** One value as a request carries it: validates batch items, bulk rows and monitor entries. */
  input: z.ZodType<In>;
}

/** How values are keyed: the walk, the repeat window and the lists find rows by key. */
export interface KeyedProduct<In = unknown, Out = unknown> extends ProductIdentity<In> {
  /** The repeat, suppression and dedupe key. Malformed values get a key too, so duplicates still dedupe. */
  normalize(input: In): string;
  /**
   * For a product whose `normalize` changed after rows were stored (address): the key function's version, and the key
   * of the value a stored answer was given for. Repeat markers and suppressions of an older version are re-keyed from
   * their stored answer when the account's rows are next read (src/engines/rekey.ts).
   */
  keys?: { version: number; of(stored: Out): string };
}

/** How values are answered: test and malformed values locally, the rest by the product's lookup. */
export interface AnsweringProduct<In = unknown, Out = unknown> extends KeyedProduct<In, Out> {
  /** Answers needing no dataset and no credit (test values, malformed input); never remembered or suppressed. */
  local?(input: In): Promise<{ result: Out; test: boolean } | null>;
  /** Fresh answers for these values, in order. */
  lookup(ctx: ProductContext, inputs: In[], options: WalkOptions): Promise<Looked<Out>[]>;
  /**
   * Answers report the account's latest feedback on some values (IP; consistency's IP signal): the walk's first call
   * reads the feedback `product` recorded within `windowMs` on the keys `keysOf` names (default: the values' own keys),
   * so looking the values up asks the account's object nothing more.
   */
  readsFeedback?: { product: ProductName; windowMs: number; keysOf?(input: In): string[] };
  /**
   * The answer as this input spelled its value, when one answer serves several spellings of a key (email: `email`):
   * asked of a copy, a repeat or a suppression, never of the answer made for the input itself.
   */
  asAsked?(result: Out, input: In): Out;
}

/** How answers are priced and billed, and when a repeat is free. */
export interface BillingProduct<In = unknown, Out = unknown> {
  /** Credit units: 1 for every product but IP, where five placing lookups cost one credit. */
  unitsPerCredit: number;
  /**
   * `remote`: answers need the network (email's DNS and mailbox handshake), so credits are reserved first and the list
   * is looked up in waves no larger than the reservation. `local`: answers come from datasets, so the whole list is
   * looked up first and exactly its price is reserved.
   */
  cost: "remote" | "local" | ((options: WalkOptions) => "remote" | "local");
  /**
   * Units a remote wave holds per value before looking it up (default 1): the most one answer can cost with these
   * options, so a partner call is never made that the hold does not cover (phone with `network`: 2).
   */
  holdUnits?(options: WalkOptions): number;
  price(result: Out): Price;
  /** Whether a fresh answer starts a 7-day repeat window (email: not while unverified; entity: when found). */
  repeatable(result: Out): boolean;
  /**
   * `stored`: a repeat answers with the stored answer (email). `fresh`: a repeat is looked up again (a cheap local
   * read) and only its price is waived, so a monitor sees today's register. A function decides per repeat, from the
   * stored answer and the value as now asked (email: a stored mailbox answer serves only spellings of the same
   * mailbox). `renew`: the stored answer does not answer these options (phone: unchecked, and `network` is asked), so
   * the value is answered fresh and billed, as with `refresh`; `env` tells what is configured (address: which countries
   * a delivery-point partner covers).
   */
  repeats:
    | "stored"
    | "fresh"
    | ((stored: Out, input: In, options: WalkOptions, env: Env) => "stored" | "fresh" | "renew");
}

/** Sandbox samples and test values. */
export interface SampleProduct<In = unknown> {
  /** Sandbox samples: the values the published sandbox key may look up. */
  isSample(input: In): boolean;
  /**
   * The sandbox samples and test values listed, as a lookup takes them (each passes `isSample`): the examples the
   * dashboard shows. Products whose samples are composed of others' (consistency) or that have none (entity) omit it.
   */
  samples?: readonly In[];
}

/** The suppression list (its routes, and the walk that honours it). */
export interface SuppressingProduct<In = unknown, Out = unknown> extends KeyedProduct<In, Out>, SampleProduct<In> {
  /** Products with a suppression list: which fresh answers join it, and the answer a manual entry gives. */
  suppressions?: {
    suppresses(result: Out): { reason: string } | null;
    /** The stored answer of a value suppressed by hand, or null when the value is malformed. */
    manual(input: In): { key: string; result: Out } | null;
    /** Field names of the list routes: the body's list (`emails`) and one entry's value (`email`). */
    listField: string;
    valueField: string;
  };
}

/** The account's history of fresh answers. */
export interface HistoryProduct<Out = unknown> {
  /** The account's history rows the walk writes for fresh answers (and `GET /{product}/history`). */
  history?: HistoryShape<Out>;
}

/** The sending policy stamped on answers. */
export interface PolicyProduct<Out = unknown> {
  /** Sending policy: `policy` on every answer, stamped by the walk (and `GET, PUT, DELETE /{product}/policy`). */
  policy?: PolicyShape<Out>;
}

/**
 * What the paid walk needs of a product (src/engines/walk/): how its values are keyed, answered, priced, remembered,
 * suppressed and stamped with a policy. Everything a product knows about its values is a plain function here; the walk
 * does the rest, the same way for every product and every path (single, batch, browser, bulk row, monitor run).
 */
export interface WalkProduct<In = unknown, Out = unknown>
  extends AnsweringProduct<In, Out>,
    BillingProduct<In, Out>,
    SuppressingProduct<In, Out>,
    HistoryProduct<Out>,
    PolicyProduct<Out> {}
