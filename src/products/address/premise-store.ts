import { and, eq, inArray } from "drizzle-orm";
import { chunks, MAX_PARAMS } from "../../db/chunks";
import { addressPremises } from "./tables";
import type { AddressDatasetName } from "./datasets";
import type { PremiseRow } from "./records";
import { streetKey } from "./names";
import { activeGeneration, inActiveGenerations, type AddressData } from "./store";

/**
 * House numbers of the street registers in D1 (`address_premises`, one row per listed address: the BAN keeps about 26
 * million for France). Kept apart from the streets so a street listing never reads them; read only for addresses whose
 * street was found.
 */

const PREMISE_COLUMNS = 6;

export async function upsertPremises(
  data: AddressData,
  dataset: AddressDatasetName,
  rows: PremiseRow[],
): Promise<void> {
  const values = rows.map((r) => ({
    country: r.country,
    postcode: r.postcode,
    streetKey: streetKey(r.street),
    number: r.number,
    dataset,
    generation: activeGeneration(data, dataset),
  }));
  const statements = chunks(values, Math.floor(MAX_PARAMS / PREMISE_COLUMNS)).map((part) =>
    data.db.insert(addressPremises).values(part).onConflictDoNothing(),
  );
  const [first, ...rest] = statements;
  if (first) await data.db.batch([first, ...rest]);
}

/** One address's question: is `number` listed on one of these streets (keys) of the postcode? */
export interface PremiseQuery {
  postcode: string;
  keys: string[];
  number: string;
}

/** `postcode|key|number` entries of the installed `datasetNames` that answer any of these queries of one country. */
export async function findPremises(
  data: AddressData,
  country: string,
  datasetNames: string[],
  queries: PremiseQuery[],
): Promise<Set<string>> {
  // A handful of addresses a statement keeps postcodes + keys + numbers under D1's 100 bound parameters.
  const reads = chunks(queries, 8).flatMap((part) => {
    const postcodes = [...new Set(part.map((q) => q.postcode))];
    const numbers = [...new Set(part.map((q) => q.number))];
    const keys = [...new Set(part.flatMap((q) => q.keys))];
    // The dataset names are one parameter (a JSON list).
    return chunks(keys, MAX_PARAMS - 10 - postcodes.length - numbers.length).map((keyPart) =>
      data.db
        .select({ postcode: addressPremises.postcode, key: addressPremises.streetKey, number: addressPremises.number })
        .from(addressPremises)
        .where(
          and(
            inActiveGenerations(addressPremises, data, datasetNames),
            eq(addressPremises.country, country),
            inArray(addressPremises.postcode, postcodes),
            inArray(addressPremises.streetKey, keyPart),
            inArray(addressPremises.number, numbers),
          ),
        ),
    );
  });
  return new Set((await Promise.all(reads)).flat().map((r) => `${r.postcode}|${r.key}|${r.number}`));
}
