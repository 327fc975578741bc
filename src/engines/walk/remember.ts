import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../db/client";
import type { Payer } from "../credits/credits";
import { historyStatements } from "../lists/history";
import { suppressStatements, unsuppressStatements } from "../lists/suppressions";
import type { Product } from "../product";
import { rememberRepeats } from "../repeats/store";
import type { Paid } from "./pay";
import type { WalkItem, WalkRequest } from "./walk";

const freshAnswers = <In, Out>(paid: Paid<In, Out>) =>
  paid.answered.filter((a) => !a.u.repeat).map((a) => ({ key: a.u.key, result: a.u.looked!.result }));

/** One D1 batch (one round trip), or none. */
export async function writeBatch(db: Database, statements: BatchItem<"sqlite">[]) {
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

/** Starts the 7-day window of every repeatable fresh answer. */
export function repeatStatements<In, Out>(
  db: Database,
  product: Product<In, Out>,
  payer: Payer,
  paid: Paid<In, Out>,
  now: number,
) {
  return rememberRepeats(
    db,
    payer.accountId,
    product.name,
    freshAnswers(paid).filter((f) => product.repeatable(f.result)),
    now,
    product.keys?.version,
  );
}

/** What else one call learned: suppressions and history. */
export function rememberStatements<In, Out>(
  db: Database,
  product: Product<In, Out>,
  payer: Payer,
  request: WalkRequest<In>,
  paid: Paid<In, Out>,
  items: WalkItem<In, Out>[],
  now: number,
): BatchItem<"sqlite">[] {
  const account = payer.accountId;
  const fresh = freshAnswers(paid);
  const statements: BatchItem<"sqlite">[] = [];
  const lists = product.suppressions;
  if (lists) {
    const verdicts = fresh.map((f) => ({ ...f, suppress: lists.suppresses(f.result) }));
    const suppress = verdicts.flatMap((v) =>
      v.suppress ? [{ key: v.key, reason: v.suppress.reason, result: v.result }] : [],
    );
    statements.push(...suppressStatements(db, account, product.name, suppress, "verdict", now, product.keys?.version));
    if (!request.options.honorSuppressions)
      statements.push(
        ...unsuppressStatements(
          db,
          account,
          product.name,
          verdicts.filter((v) => !v.suppress).map((v) => v.key),
        ),
      );
  }
  if (product.history) {
    const shape = product.history;
    const entries = items
      .filter((item) => !item.test)
      .map((item) => ({
        ...shape.row(item.data),
        creditsUsed: item.meta.credits_used,
        cacheHit: item.meta.cache_hit,
        suppressed: item.meta.suppressed,
      }));
    statements.push(...historyStatements(db, account, product.name, request.requestId, entries, now));
  }
  return statements;
}
