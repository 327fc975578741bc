import { CsvParser } from "../../../datasets/registers/csv.mjs";
import type { RecordFormat } from "./refreshable";

/**
 * Cuts a byte range of a staged file into whole records. An import step always starts at a record boundary, so the
 * boundary at its end is found on bytes alone: the last line feed outside a quoted field (a quote and a line feed are
 * single bytes in UTF-8, and a doubled quote toggles twice). Only that prefix is decoded and parsed, with the
 * project's streaming CSV reader (datasets/registers/csv.mjs, the one the operator's importers use).
 */
const LF = 10;
const QUOTE = 34;

/** The number of bytes of `bytes` that hold whole records; 0 when none ends in it. `final`: the file ends here. */
export function wholeRecordBytes(bytes: Uint8Array, format: RecordFormat, final: boolean): number {
  if (final) return bytes.length;
  if (format.kind === "whole" || format.kind === "binary") return 0;
  if (format.kind === "lines") return bytes.lastIndexOf(LF) + 1;
  let quoted = false;
  let end = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) quoted = !quoted;
    else if (b === LF && !quoted) end = i + 1;
  }
  return end;
}

const decoder = new TextDecoder();

/** The records of whole-record bytes (as `wholeRecordBytes` measured them). */
export function parseRecords(bytes: Uint8Array, format: RecordFormat): string[][] {
  const text = decoder.decode(bytes);
  if (format.kind === "binary") return [];
  if (format.kind === "whole") return [[text]];
  if (format.kind === "lines") {
    return text
      .split("\n")
      .map((line) => line.replace(/\r$/, ""))
      .filter((line) => line.trim() !== "")
      .map((line) => [line]);
  }
  const parser = new CsvParser({ delimiter: format.delimiter ?? "," });
  return [...parser.push(text), ...parser.end()];
}
