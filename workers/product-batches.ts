import { registeredProducts } from "../src/products/registry";

/** Handles every message of one type in a delivered batch at once. */
export type BatchHandler = (env: Env, messages: readonly { type: string }[]) => Promise<void>;

/**
 * Queue consumer for products' batched messages (`Product.batchedMessages`, such as email's shared mailbox answers,
 * sent after lookups' answers): each type's handler, found by the registry, so src/queue.ts names no product. The
 * queue hands it every message of that type in a delivered batch, and the handler stores them in one D1 write.
 */
export function productBatchHandlers(): [string, BatchHandler][] {
  return registeredProducts().flatMap((product) => Object.entries(product.batchedMessages ?? {}));
}
