import type { Product } from "../../engines/product";
import type { ConsistencyDeps } from "./deps";
import { CHECK_NAMES, SIGNAL_NAMES, type ConsistencyResult } from "./result";
import { consistencyInputSchema, type ConsistencyInput } from "./schemas";
import { consistencySignals, wantsNetwork } from "./signals";

const BULK_COLUMNS = [
  "score",
  "level",
  ...CHECK_NAMES,
  "agreements",
  "disagreements",
  "risk_score",
  "risk_level",
] as const;

/** 1 credit when a check was decided, 1 more when a network partner answered; nothing on a partner outage. */
const unitsOf = (result: ConsistencyResult) =>
  result.score === null || result.reason === "partner_unavailable"
    ? 0
    : result.signals.phone?.line_type_source === "network"
      ? 2
      : 1;

/**
 * The IP signal's answer reports the account's feedback on the address, as `POST /ip`'s does: the walk's first call
 * reads it with the hold, so the IP signal asks the account's object nothing more.
 */
function ipFeedback(deps: ConsistencyDeps): Pick<Product<ConsistencyInput, ConsistencyResult>, "readsFeedback"> {
  const reads = deps.ip.readsFeedback;
  if (!reads) return {};
  const keysOf = (ip: unknown) => reads.keysOf?.(ip) ?? [deps.ip.normalize(ip)];
  return { readsFeedback: { ...reads, keysOf: (input) => (input.ip == null ? [] : keysOf(input.ip)) } };
}

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
    // that decides nothing is answered even with no credits. A partner call costs money: with `network` the walk holds
    // first, 2 units a value, as phone does.
    cost: (options) => (wantsNetwork(options) ? "remote" : "local"),
    holdUnits: (options) => (wantsNetwork(options) ? 2 : 1),
    normalize: consistencyKey,
    local: localConsistency,
    lookup: (ctx, inputs, options) =>
      lookupConsistency(ctx, inputs, options).then((results) => results.map((result) => ({ result }))),
    price: (result) => ({ units: unitsOf(result) }),
    repeatable: (result) => unitsOf(result) > 0,
    // A repeat is answered again from today's data and only its price is waived, as for the signals' own products. With
    // `network`, a set whose valid phone was checked is the stored answer (no second partner call within 7 days); one
    // checked without it is checked now.
    repeats: (stored, _input, options) => {
      const phone = stored.signals.phone;
      if (!wantsNetwork(options) || !phone?.valid) return "fresh";
      return phone.line_type_source === "network" ? "stored" : "renew";
    },
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
    ...ipFeedback(deps),
    isSample: isSampleSet,
    datasets,
    signals: SIGNAL_NAMES,
  };
}
