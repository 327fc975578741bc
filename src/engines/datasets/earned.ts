import type { Coverage, FullFloor } from "./refreshable";

const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * The coverage a refreshed generation of `records` rows has earned. A publisher's file says nothing of its own
 * completeness, so a dataset declared `full` is recorded as such only when the generation reaches the floor of a
 * complete file; below it the rows are still answers (`partial`: what they hold is found, what they lack is not a
 * negative), and `shortfall` says why, for the refresh status and the dataset's coverage note.
 */
export function earnedCoverage(
  declared: Coverage,
  records: number,
  floor: FullFloor | null,
): { coverage: Coverage; shortfall: string | null } {
  if (declared.kind !== "full" || (floor !== null && records >= floor.records))
    return { coverage: declared, shortfall: null };
  const shortfall = floor
    ? `${grouped(records)} rows, under the ${grouped(floor.records)} of a complete file (${floor.basis}): ` +
      "recorded as partial"
    : "no floor is documented for a complete file: recorded as partial";
  return {
    coverage: {
      kind: "partial",
      ...(declared.countries ? { countries: declared.countries } : {}),
      note: shortfall.slice(0, 300),
    },
    shortfall,
  };
}
