import { latestFeedback } from "./list-pages";
import { answeredFree, type BeginRecall, type StoredFeedback, type StoredKeyed } from "./list-types";
import type { AccountLists } from "./lists";
import type { Reservations } from "./reservations";
import type { AdmissionRequest, ReserveRequest, ReserveResult } from "./types";

/** What `begin` answers: the lists' rows for the walk's values, and its hold. */
export interface Begun {
  recall: { repeats: StoredKeyed[]; suppressions: StoredKeyed[]; feedback?: StoredFeedback[] };
  hold: ReserveResult;
  /** The keys the hold was asked for, in order: the claims less the values a stored row answers free. */
  asked: string[];
}

/** The parts of the account's object a walk's first call reads and holds on. */
interface BeginParts {
  sql: SqlStorage;
  lists: AccountLists;
  reservations: Reservations;
}

/**
 * A walk's first call, in one synchronous step: the stored rows (repeats, suppressions, feedback) of its values, then
 * the hold for what those rows leave to pay for. `record`: the HTTP request behind the hold (see Reservations.reserve).
 */
export function beginWalk(
  parts: BeginParts,
  request: ReserveRequest,
  recall: BeginRecall,
  record?: AdmissionRequest["request"],
): Begun {
  const rows = parts.lists.recall(recall.product, recall.keys, recall.at, recall.want);
  const free = recall.free ? answeredFree(rows, recall.free.repeatsAfter) : new Set<string>();
  // A batch's first wave: the hold is asked only for what the rows leave to pay for (with `share`, at most half of
  // what is available, as any wave).
  const claims = request.claims && { ...request.claims, items: request.claims.items.filter((c) => !free.has(c.key)) };
  const feedback = recall.want.feedback;
  return {
    recall: feedback
      ? {
          ...rows,
          // Another product's feedback when the values are its (consistency's IP signal), else the recall's own.
          feedback: latestFeedback(parts.sql, {
            product: feedback.product ?? recall.product,
            keys: feedback.keys ?? recall.keys,
            since: feedback.since,
            ignored: feedback.ignored,
          }),
        }
      : rows,
    hold: parts.reservations.reserve(claims ? { ...request, claims } : request, record),
    asked: claims?.items.map((c) => c.key) ?? [],
  };
}
