import { database } from "../../db/client";
import { ADDRESS_DATASETS, isAddressDatasetName } from "./datasets";
import { answer, prepare, type Prepared } from "./answer";
import { coveringDatasets } from "./reference";
import { streetKey } from "./names";
import { premisesFound, type PremiseAsk } from "./premises";
import type { AddressInput, AddressResult } from "./result";
import {
  addressData,
  findPostcodes,
  findStreets,
  installedDatasets,
  placeOf,
  type AddressData,
  type Installed,
  type StoredPostcode,
} from "./store";

/** Countries some dataset could cover: only their postcodes are worth a read before knowing what is installed. */
const COVERABLE = new Set(
  Object.values(ADDRESS_DATASETS).flatMap((d) => (d.holds.includes("postcodes") ? d.countries : [])),
);

/** The postcode a street dataset files its streets under: the UK's are by postcode district (`SW1A`). */
const streetPostcode = (country: string, postcode: string) =>
  ["GB", "JE", "GG", "IM"].includes(country) ? postcode.split(" ")[0]! : postcode;

/**
 * Every run of consecutive words of line 1 (up to 8 words), as street keys: `12 Rue de Rivoli` holds `RUE DE RIVOLI`.
 */
function streetCandidates(line1: string): string[] {
  const words = streetKey(line1).split(" ").filter(Boolean).slice(0, 8);
  const runs: string[] = [];
  for (let i = 0; i < words.length; i++)
    for (let j = i + 1; j <= words.length; j++) runs.push(words.slice(i, j).join(" "));
  return runs.filter((run) => /[A-Z]/.test(run));
}

/**
 * For each address whose postcode was found and a street dataset covers its country: the street keys of line 1 a
 * dataset lists there (empty: none), with the postcode streets are filed under; null when no street dataset was asked.
 */
async function streetsFound(
  data: AddressData,
  installed: Installed,
  prepared: Prepared[],
  rows: Map<string, StoredPostcode[]>,
): Promise<(PremiseAsk | null)[]> {
  const wanted = prepared.map((p) => {
    if (!p.place || !p.read.line1 || !rows.get(placeOf(p.place.country, p.place.postcode))?.length) return null;
    if (!coveringDatasets(installed, p.place.country, "streets").length) return null;
    return {
      country: p.place.country,
      postcode: streetPostcode(p.place.country, p.postcode!),
      keys: streetCandidates(p.read.line1),
    };
  });
  const byCountry = new Map<string, { postcodes: string[]; keys: string[] }>();
  for (const w of wanted) {
    if (!w) continue;
    const group = byCountry.get(w.country) ?? { postcodes: [], keys: [] };
    group.postcodes.push(w.postcode);
    group.keys.push(...w.keys);
    byCountry.set(w.country, group);
  }
  const listed = new Map(
    await Promise.all(
      [...byCountry].map(
        async ([country, g]) => [country, await findStreets(data, country, g.postcodes, g.keys)] as const,
      ),
    ),
  );
  return wanted.map((w, i) =>
    w
      ? {
          country: w.country,
          postcode: w.postcode,
          keys: w.keys.filter((key) => listed.get(w.country)!.has(`${w.postcode}|${key}`)),
          line1: prepared[i]!.read.line1,
        }
      : null,
  );
}

/**
 * Answers addresses from the reference data in D1 (no network): which datasets are installed and the rows of every
 * postcode in the list are read together, then the streets of the found ones where a street dataset is installed.
 */
export async function lookupAddresses(env: Env, inputs: AddressInput[]): Promise<AddressResult[]> {
  const prepared = inputs.map(prepare);
  const places = prepared.flatMap((p) => (p.place && COVERABLE.has(p.place.country) ? [p.place] : []));
  // The rows live in their own database: the generations they are read in come from `DB` first.
  const [installed, data] = await Promise.all([installedDatasets(database(env)), addressData(env)]);
  const stored = places.length ? await findPostcodes(data, places) : new Map<string, StoredPostcode[]>();
  const rowsOf = (p: Prepared) => {
    if (!p.place) return [];
    return (stored.get(placeOf(p.place.country, p.place.postcode)) ?? []).filter(
      (row) => isAddressDatasetName(row.dataset) && installed.has(row.dataset),
    );
  };
  const rows = new Map(
    prepared.flatMap((p) => (p.place ? [[placeOf(p.place.country, p.place.postcode), rowsOf(p)] as const] : [])),
  );
  const streets = await streetsFound(data, installed, prepared, rows);
  const premiseDatasets = (country: string) => coveringDatasets(installed, country, "premises");
  const premises = await premisesFound(
    data,
    premiseDatasets,
    streets.map((s) => (s?.keys.length ? s : null)),
  );
  return prepared.map((p, i) =>
    answer(p, {
      installed,
      covering: coveringDatasets(installed, p.read.country, "postcodes"),
      rows: rowsOf(p),
      streetDatasets: coveringDatasets(installed, p.read.country, "streets"),
      streetFound: streets[i] ? streets[i].keys.length > 0 : null,
      premiseDatasets: premiseDatasets(p.read.country),
      premiseFound: premises[i]!,
    }),
  );
}
