import type { Generations } from "../store";
import { readHits, tier, type Hit } from "./search";
import type { Query } from "./normalise";
import type { Suggestion } from "./result";

/** Countries writing the postcode before the place (`75008 Paris`), and the number after the street (`Hauptstr. 1`). */
const POSTCODE_FIRST = new Set(["FR", "DE", "AT", "CH", "BE", "NL", "ES", "IT"]);
const NUMBER_AFTER = new Set(["DE", "AT", "CH", "NL"]);

function shown(hit: Hit, country: string, query: Query): Suggestion {
  const number = hit.kind === "street" && hit.premise ? query.number : null;
  const line1 =
    hit.kind === "postcode"
      ? null
      : number
        ? NUMBER_AFTER.has(country)
          ? `${hit.label} ${number.toLowerCase()}`
          : `${number.toLowerCase()} ${hit.label}`
        : hit.label;
  const place = [hit.postcode, hit.locality ?? ""];
  const tail = (POSTCODE_FIRST.has(country) ? place : place.reverse()).filter(Boolean).join(" ");
  return {
    text: [line1, tail].filter(Boolean).join(", "),
    line1,
    locality: hit.locality,
    region: hit.region,
    postcode: hit.postcode,
    country,
    precision: number ? "premise" : hit.kind === "street" ? "street" : "postcode",
    id: [country, hit.kind, hit.postcode, hit.kind === "street" ? hit.street_key : hit.label, number ?? ""]
      .join("|")
      .replace(/\|$/, ""),
  };
}

/** The query's suggestions, best first (search.ts `tier`; then the shorter name, then by name and postcode). */
export async function suggestions(
  db: D1Database,
  request: { country: string; query: Query; limit: number; installed: Generations },
): Promise<{ suggestions: Suggestion[]; datasets: Set<string> }> {
  const { country, query, limit, installed } = request;
  const hits = await readHits(db, { country, query, installed });
  const ranked = hits
    .map((hit) => ({ hit, tier: tier(hit, query) }))
    .sort(
      (a, b) =>
        a.tier - b.tier ||
        a.hit.label.length - b.hit.label.length ||
        a.hit.label.localeCompare(b.hit.label) ||
        a.hit.postcode.localeCompare(b.hit.postcode),
    );
  const seen = new Map<string, Suggestion>();
  const datasets = new Set<string>();
  for (const { hit } of ranked) {
    const s = shown(hit, country, query);
    if (seen.has(s.id)) continue;
    if (seen.size === limit) break;
    seen.set(s.id, s);
    datasets.add(hit.dataset);
  }
  return { suggestions: [...seen.values()], datasets };
}
