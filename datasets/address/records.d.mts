/** Types of records.mjs, for TypeScript callers such as the Worker tests. */
import type { FileFormat, PostcodeRow, PremiseRow, StreetRow } from "../../src/products/address/datasets";

export declare function fileRecords(
  format: FileFormat,
  label: string,
  chunks: AsyncIterable<string> | Iterable<string>,
): AsyncGenerator<{ postcodes: PostcodeRow[]; streets: StreetRow[]; premises: PremiseRow[]; skipped: number }>;
