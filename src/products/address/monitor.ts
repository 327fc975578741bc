import type { AddressResult } from "./result";

/**
 * What an address monitor watches (docs/address.md, "Monitors"): the verdict and what the reference data says about
 * the postcode, so a postcode that is retired, or a locality that is re-named, shows as a change; with
 * `delivery_point: true`, also whether the delivery-point partner still confirms it.
 */
const WATCHED = [
  "verification",
  "reason",
  "precision",
  "postcode_found",
  "locality_matches_postcode",
  "region_matches_postcode",
] as const;

export const observe = (result: AddressResult): Record<string, unknown> => ({
  ...Object.fromEntries(WATCHED.map((field) => [field, result[field]])),
  corrections: result.corrections.map((c) => `${c.field}:${c.to}`).sort(),
  deliverable: result.deliverable,
  delivery_checked: result.delivery_point !== null,
});

/**
 * `deliverable` is compared only when a partner answered both runs: an unchecked run (the option off, a country no
 * partner covers, an outage) says nothing about the delivery point, so turning the option on or a partner outage is
 * no change. Baselines recorded before monitors observed it lack `delivery_checked` and read as unchecked.
 */
const deliverableChange = (baseline: Record<string, unknown>, now: Record<string, unknown>) =>
  baseline.delivery_checked === true && now.delivery_checked === true && baseline.deliverable !== now.deliverable
    ? [{ field: "deliverable", from: baseline.deliverable ?? null, to: now.deliverable ?? null }]
    : [];

export function compare(baseline: Record<string, unknown>, now: Record<string, unknown>) {
  const changes: { field: string; from: unknown; to: unknown }[] = [];
  for (const field of [...WATCHED, "corrections"]) {
    if (JSON.stringify(baseline[field]) !== JSON.stringify(now[field]))
      changes.push({ field, from: baseline[field] ?? null, to: now[field] ?? null });
  }
  return [...changes, ...deliverableChange(baseline, now)];
}

/** The address on one line, as a run's `changes` name it. */
export const label = (result: AddressResult) =>
  (result.formatted ?? result.address.line1 ?? result.country).replace(/\n/g, ", ");
