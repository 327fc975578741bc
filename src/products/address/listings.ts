import { z } from "zod";
import { database } from "../../db/client";
import { isExhaustive } from "../../db/coverage";
import type { Product, Source } from "../../engines/product";
import { coveringDatasets } from "./reference";
import { ADDRESS_DATASET_NAMES, isAddressDatasetName } from "./datasets";
import { canonicalPostcode, postcodeShapeValid, referenceKey } from "./postcodes";
import {
  addressData,
  findPostcodes,
  installedDatasets,
  listStreets,
  placeOf,
  type Installed,
  type StoredPostcode,
} from "./store";
import { installedSource } from "../../engines/sources";
import type { PostcodeListing, StreetListing } from "./result";

/**
 * `GET /address/postcode/{postcode}` and `GET /address/streets` as products of their own for the walk: they share the
 * address repeat window (keys `postcode:` and `streets:`), bill 1 only when something was found and the answer is
 * fresh, and have no list, bulk run or monitor. `covered` false tells the route that no installed dataset covers the
 * country, or the postcode (501 / 404): such an answer costs nothing and starts no repeat window.
 */
export interface Place {
  postcode: string;
  country: string;
}

export interface Listed<T> {
  data: T;
  covered: boolean;
}

const place = z.object({ postcode: z.string().max(20), country: z.string().length(2) });

const sourcesOf = (installed: Installed, names: string[]): Source[] =>
  [...new Set(names)].filter(isAddressDatasetName).map((dataset) => installedSource(dataset, installed.get(dataset)!));

async function listPostcode(env: Env, { postcode, country }: Place): Promise<Listed<PostcodeListing>> {
  const canonical = canonicalPostcode(country, postcode);
  const shaped = postcodeShapeValid(country, canonical) !== false;
  const key = referenceKey(country, canonical);
  const [installed, reference] = await Promise.all([installedDatasets(database(env)), addressData(env)]);
  const stored = shaped
    ? await findPostcodes(reference, [{ country, postcode: key }])
    : new Map<string, StoredPostcode[]>();
  const covering = coveringDatasets(installed, country, "postcodes");
  const rows = (stored.get(placeOf(country, key)) ?? []).filter(
    (r) => isAddressDatasetName(r.dataset) && covering.includes(r.dataset),
  );
  const centroid = rows.find((r) => r.latitude !== null);
  const localities = new Map<string, PostcodeListing["localities"][number]>();
  for (const r of rows) {
    if (r.alias || r.locality === null || localities.has(r.locality)) continue;
    const at = r.latitude !== null ? r : centroid;
    localities.set(r.locality, {
      name: r.locality,
      region: r.region,
      latitude: at?.latitude ?? null,
      longitude: at?.longitude ?? null,
    });
  }
  const data = {
    postcode: canonical,
    country,
    found: rows.length > 0,
    localities: [...localities.values()],
    sources: sourcesOf(installed, covering),
  };
  // A well-formed postcode none of them holds is "not found" only from a complete file (src/db/coverage.ts); from a
  // sample or part of one it is outside what is installed: 501, as for a country no dataset covers.
  const known =
    rows.length > 0 || !shaped || covering.some((name) => isExhaustive(installed.get(name)!.coverage, country));
  return { data, covered: covering.length > 0 && known };
}

export const STREETS_LIMIT = 500;

async function listStreetsOf(env: Env, { postcode, country }: Place): Promise<Listed<StreetListing>> {
  const canonical = canonicalPostcode(country, postcode);
  const [installed, reference] = await Promise.all([installedDatasets(database(env)), addressData(env)]);
  const covering = coveringDatasets(installed, country, "streets");
  // UK street datasets file roads by postcode district: `SW1A 2AA` lists the roads of `SW1A`.
  const filed = ["GB", "JE", "GG", "IM"].includes(country) ? canonical.split(" ")[0]! : canonical;
  const rows = covering.length
    ? await listStreets(reference, { country, postcode: filed, datasetNames: covering, limit: STREETS_LIMIT })
    : [];
  const streets = [
    ...new Map(rows.slice(0, STREETS_LIMIT).map((r) => [r.street, { name: r.street, locality: r.locality }])).values(),
  ];
  const data = {
    country,
    postcode: canonical,
    streets,
    truncated: rows.length > STREETS_LIMIT,
    sources: sourcesOf(
      installed,
      rows.map((r) => r.dataset),
    ),
  };
  return { data, covered: streets.length > 0 };
}

function listing<T>(
  kind: "postcode" | "streets",
  list: (env: Env, p: Place) => Promise<Listed<T>>,
  found: (data: T) => boolean,
): Product<Place, Listed<T>> {
  return {
    name: "address",
    scope: "address",
    input: place,
    unitsPerCredit: 1,
    cost: "local",
    normalize: (p) => `${kind}:${p.country}:${canonicalPostcode(p.country, p.postcode)}`,
    lookup: (ctx, inputs) => Promise.all(inputs.map(async (p) => ({ result: await list(ctx.env, p) }))),
    price: (r) => ({ units: r.covered && found(r.data) ? 1 : 0 }),
    repeatable: (r) => r.covered && found(r.data),
    repeats: "fresh",
    isSample: () => false,
    datasets: ADDRESS_DATASET_NAMES,
  };
}

export const postcodeListing = listing("postcode", listPostcode, (d) => d.found);
export const streetListing = listing("streets", listStreetsOf, (d) => d.streets.length > 0);
