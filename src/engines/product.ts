import type { LookupDeclarations } from "./lookup-declarations";
import type {
  BulkProduct,
  DatasetProduct,
  FeedbackProduct,
  MessagesProduct,
  MonitorProduct,
} from "./product/service-roles";

/**
 * A product as the registry holds it, composed of its roles (src/engines/product/): each engine takes the role it uses
 * (the walk a `WalkProduct`, bulk runs a `BulkProduct`, ...), the registry and the surfaces the whole.
 */

export type { Defer, Looked, Price, ProductContext, WalkOptions } from "./product/context";
export type { MonitorShape } from "./product/shapes";
export type * from "./product/service-roles";
export type { SuppressingProduct, WalkProduct } from "./product/walk-roles";
export type { Source } from "./sources";

/** The surfaces' part of a product: its declared lookups, and what only one product has. */
export interface DeclaredProduct {
  /** Its lookups as data (single, batch, browser, its own reads): every surface mounts or calls them. */
  lookups?: LookupDeclarations;
  /**
   * A product that compares other products' answers (consistency): the input fields it accepts, each a signal answered
   * by the registered product of that name.
   */
  signals?: readonly string[];
  /** Email only: further product objects served under this one's name (its domain lookups, for domain monitors). */
  companions?: readonly Product[];
}

/** One product as the registry holds it: every role. */
export interface Product<In = unknown, Out = unknown>
  extends BulkProduct<In, Out>,
    MonitorProduct<In, Out>,
    FeedbackProduct<In, Out>,
    DatasetProduct,
    MessagesProduct,
    DeclaredProduct {}

/**
 * Widens a concrete product to the registry's element type; the engines only pass a product's own values back to it.
 */
export const asProduct = <In, Out>(product: Product<In, Out>) => product as unknown as Product;
