import type { Product } from "../../engines/product";
import type { ConsistencyDeps } from "./deps";
import { CHECK_NAMES, type ConsistencyInput, type ConsistencyResult } from "./result";
import { consistencyInputSchema } from "./schemas";
import { consistencySignals } from "./signals";

const BULK_COLUMNS = [
  "score",
  "level",
  ...CHECK_NAMES,
  "agreements",
  "disagreements",
  "risk_score",
  "risk_level",
] as const;

/**
 * Cross-signal consistency (docs/consistency.md): two or more signals, each answered by its own product (email without
 * the mailbox handshake), compared by named checks. 1 credit when at least one check was decided; the signals inside
 * are not billed, and a repeat of the same signal set (by each signal's own key) within 7 days is free. The products it
 * compares are handed in by the registry (`deps`), so it imports none of them.
 */
export function consistencyProduct(deps: ConsistencyDeps): Product<ConsistencyInput, ConsistencyResult> {
  const { lookupConsistency, localConsistency, consistencyKey, isSampleSet, datasets } = consistencySignals(deps);
  return {
    name: "consistency",
    scope: "consistency",
    input: consistencyInputSchema(deps),
    unitsPerCredit: 1,
    // DNS is the only network read (no handshake), so the list is looked up first and exactly its price is held: a call
    // that decides nothing is answered even with no credits.
    cost: "local",
    normalize: consistencyKey,
    local: localConsistency,
    lookup: (ctx, inputs) => lookupConsistency(ctx, inputs).then((results) => results.map((result) => ({ result }))),
    price: (result) => ({ units: result.score === null ? 0 : 1 }),
    repeatable: (result) => result.score !== null,
    // A repeat is answered again from today's data and only its price is waived, as for the signals' own products.
    repeats: "fresh",
    bulk: {
      field: "rows",
      counters: ["consistent", "mixed", "inconsistent", "undecided"],
      columns: BULK_COLUMNS,
      row: (r) => [
        r.score,
        r.level,
        ...CHECK_NAMES.map((name) => r.checks.find((c) => c.name === name)!.result),
        r.agreements.join(" "),
        r.disagreements.join(" "),
        r.risk_score,
        r.risk_level,
      ],
      verdictColumn: "level",
      counts: (row) => [row.level || "undecided"],
      sampleCounts: { consistent: 1, mixed: 0, inconsistent: 1, undecided: 0 },
    },
    isSample: isSampleSet,
    datasets,
  };
}
