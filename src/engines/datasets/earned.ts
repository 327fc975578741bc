import type { Coverage, FullFloor } from "./refreshable";

/** The note of a generation installed from a stand-in publisher: what the refresh status and `/status/data` show. */
export const standInNote = (label: string) =>
  `Installed from a stand-in publisher (${label}, as npm run dev -- --offline runs it): its sample rows, not the ` +
  "publisher's file; answers it decides say sample_data.";

/**
 * The coverage of a generation a stand-in publisher served: `sample` whatever its size or what the publisher's whole
 * file would cover, so its rows stay a sample's wherever they are read (answers, bulk runs, monitors, normal mode
 * after an offline refresh), and the note says where they came from.
 */
export function standInCoverage(declared: Coverage, label: string): { coverage: Coverage; shortfall: string } {
  const note = standInNote(label).slice(0, 300);
  return {
    coverage: { kind: "sample", ...(declared.countries ? { countries: declared.countries } : {}), note },
    shortfall: note,
  };
}

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
