import type { ListsWrite } from "../../../durable-objects/account-object";
import type { Paid, WalkItem, WalkState } from "./state";

const freshAnswers = <In, Out>(paid: Paid<In, Out>) =>
  paid.answered.filter((a) => !a.u.repeat).map((a) => ({ key: a.u.key, result: a.u.looked!.result as unknown }));

/** Starts (or restarts) the 7-day window of every repeatable fresh answer. */
export function repeatWrite<In, Out>({ product, paid }: WalkState<In, Out>): ListsWrite {
  return {
    keyVersion: product.keys?.version ?? 0,
    repeats: freshAnswers(paid).filter((f) => product.repeatable(f.result as Out)),
  };
}

/** What else one call learned: suppressions and history. */
export function rememberWrite<In, Out>(state: WalkState<In, Out>, items: WalkItem<In, Out>[]): ListsWrite {
  const { product, request, paid } = state;
  const fresh = freshAnswers(paid);
  const write: ListsWrite = { keyVersion: product.keys?.version ?? 0 };
  const lists = product.suppressions;
  if (lists) {
    const verdicts = fresh.map((f) => ({ ...f, suppress: lists.suppresses(f.result as Out) }));
    write.suppress = {
      source: "verdict",
      entries: verdicts.flatMap((v) =>
        v.suppress ? [{ key: v.key, reason: v.suppress.reason, result: v.result }] : [],
      ),
    };
    if (!request.options.honorSuppressions) write.unsuppress = verdicts.filter((v) => !v.suppress).map((v) => v.key);
  }
  if (product.history) {
    const shape = product.history;
    write.history = items
      .filter((item) => !item.test)
      .map((item) => ({
        ...shape.row(item.data),
        requestId: request.requestId,
        creditsUsed: item.meta.credits_used,
        cacheHit: item.meta.cache_hit,
        suppressed: item.meta.suppressed,
      }));
  }
  return write;
}

/** Both writes as one (one transaction of the account's object). */
export const mergeWrites = (a: ListsWrite, b: ListsWrite): ListsWrite => ({ ...a, ...b, repeats: a.repeats ?? [] });

/** Nothing to write (test values only, say): no call is made for it. */
export const writesNothing = (w: ListsWrite) =>
  !w.repeats?.length &&
  !w.suppress?.entries.length &&
  !w.unsuppress?.length &&
  !w.history?.length &&
  !w.feedback?.length;
