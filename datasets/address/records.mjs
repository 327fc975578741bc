// Reads an address dataset file in its publisher's format (a FileFormat of src/products/address/records.ts) into the
// rows the operator routes take. No Node built-ins: scripts/import-address.mjs streams files through it, and the tests
// in workerd read the shipped samples with it.
import { csvBatches, headerIndexes } from "../registers/csv.mjs";

/**
 * The rows of one file, as `{postcodes, streets, premises, skipped}` per parsed chunk. Files with a header are read by
 * column name; headerless ones (OS Open Names) by position, skipping a header row if one is there. A street repeated on
 * consecutive records (one BAN record per address) is sent once.
 */
export async function* fileRecords(format, label, chunks) {
  let indexes = format.header ? null : format.columns.map((column, i) => [column, i]);
  let lastStreet = "";
  for await (const records of csvBatches(chunks, { delimiter: format.delimiter })) {
    const out = { postcodes: [], streets: [], premises: [], skipped: 0 };
    for (const record of records) {
      if (!format.header && record[0] === format.columns[0]) continue;
      if (!indexes) {
        indexes = headerIndexes(record, format.columns, label);
        continue;
      }
      const fields = {};
      for (const [column, index] of indexes) fields[column] = record[index] ?? "";
      const parsed = format.parse(fields);
      if (!parsed) {
        out.skipped += 1;
        continue;
      }
      out.postcodes.push(...(parsed.postcodes ?? []));
      out.premises.push(...(parsed.premises ?? []));
      for (const street of parsed.streets ?? []) {
        const key = `${street.country}|${street.postcode}|${street.street}`;
        if (key !== lastStreet) out.streets.push(street);
        lastStreet = key;
      }
    }
    yield out;
  }
  if (!indexes) throw new Error(`the ${label} file is empty`);
}
