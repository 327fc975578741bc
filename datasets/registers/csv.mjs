// A streaming RFC 4180 CSV reader: feed text chunks of any size, get back the records each chunk completes. Quoted
// fields may hold commas, doubled quotes ("") and line breaks; records end at CRLF, LF or a lone CR; a chunk may end
// anywhere (inside a quoted field, between the two quotes of "", between CR and LF). Only the current record is ever
// held, so a multi-gigabyte register file streams in constant memory. Lenient where files are sloppy: a quote inside an
// unquoted field is kept as text, text after a closing quote is appended, blank lines are skipped, and a UTF-8 BOM at
// the very start is dropped. An unterminated quoted field at the end of input is an error.

const COMMA = 44;
const QUOTE = 34;
const LF = 10;
const CR = 13;

const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3; // a quote inside a quoted field: the closing one, or the first of ""
const AFTER_CR = 4; // a record just ended at CR: an LF right after it belongs to the same line break

export class CsvParser {
  #delimiter = COMMA;
  #state = FIELD_START;
  #field = "";
  #record = [];
  #quotedRecord = false;
  #started = false;
  /** Complete records so far, counted. */
  records = 0;

  /** `delimiter`: the field separator, one character (`,` by default; the French BAN uses `;`). */
  constructor({ delimiter = "," } = {}) {
    if (delimiter.length !== 1 || delimiter === '"')
      throw new Error("CSV: the delimiter is one character other than a quote");
    this.#delimiter = delimiter.charCodeAt(0);
  }

  /** Parses one chunk; returns the records (arrays of strings) that it completed. */
  push(chunk) {
    const out = [];
    let i = 0;
    if (!this.#started) {
      this.#started = chunk.length > 0;
      if (chunk.charCodeAt(0) === 0xfeff) i = 1;
    }
    const n = chunk.length;
    const delimiter = this.#delimiter;
    while (i < n) {
      const state = this.#state;
      if (state === QUOTED) {
        const q = chunk.indexOf('"', i);
        if (q === -1) {
          this.#field += i === 0 ? chunk : chunk.slice(i);
          return out;
        }
        this.#field += chunk.slice(i, q);
        this.#state = QUOTE_IN_QUOTED;
        i = q + 1;
        continue;
      }
      if (state === QUOTE_IN_QUOTED) {
        if (chunk.charCodeAt(i) === QUOTE) {
          this.#field += '"';
          this.#state = QUOTED;
          i += 1;
        } else {
          this.#state = UNQUOTED; // that was the closing quote; what follows is read as unquoted text
        }
        continue;
      }
      if (state === AFTER_CR) {
        if (chunk.charCodeAt(i) === LF) i += 1;
        this.#state = FIELD_START;
        continue;
      }
      if (state === FIELD_START && chunk.charCodeAt(i) === QUOTE) {
        this.#state = QUOTED;
        this.#quotedRecord = true;
        i += 1;
        continue;
      }
      let j = i;
      let c = 0;
      while (j < n) {
        c = chunk.charCodeAt(j);
        if (c === delimiter || c === LF || c === CR) break;
        j += 1;
      }
      if (j > i) this.#field += chunk.slice(i, j);
      if (j === n) {
        this.#state = UNQUOTED;
        return out;
      }
      this.#record.push(this.#field);
      this.#field = "";
      i = j + 1;
      if (c === delimiter) {
        this.#state = FIELD_START;
        continue;
      }
      this.#endRecord(out);
      this.#state = c === CR ? AFTER_CR : FIELD_START;
    }
    return out;
  }

  /** Flushes the last record (a file need not end with a line break); throws on an unterminated quoted field. */
  end() {
    const out = [];
    if (this.#state === QUOTED)
      throw new Error(`CSV: a quoted field is not closed at the end of input (record ${this.records + 1})`);
    if (this.#state === UNQUOTED || this.#state === QUOTE_IN_QUOTED || this.#record.length > 0) {
      this.#record.push(this.#field);
      this.#field = "";
      this.#endRecord(out);
    }
    this.#state = FIELD_START;
    return out;
  }

  #endRecord(out) {
    const record = this.#record;
    this.#record = [];
    const blank = record.length === 1 && record[0] === "" && !this.#quotedRecord;
    this.#quotedRecord = false;
    if (blank) return;
    this.records += 1;
    out.push(record);
  }
}

/**
 * `[column, position]` of each wanted column in a header record (names trimmed: Companies House writes
 * ` CompanyNumber`); throws when the header lacks one, naming the file as `label`.
 */
export function headerIndexes(record, columns, label) {
  const header = record.map((name) => name.trim());
  const missing = columns.filter((column) => !header.includes(column));
  if (missing.length) throw new Error(`not a ${label} file: its header lacks ${missing.join(", ")}`);
  return columns.map((column) => [column, header.indexOf(column)]);
}

/** Every record of a text stream (an async iterable of string chunks), yielded as arrays of records per chunk. */
export async function* csvBatches(chunks, options = {}) {
  const parser = new CsvParser(options);
  for await (const chunk of chunks) {
    const records = parser.push(typeof chunk === "string" ? chunk : String(chunk));
    if (records.length) yield records;
  }
  const rest = parser.end();
  if (rest.length) yield rest;
}

/** Every record of a text stream, one at a time. */
export async function* csvRecords(chunks, options = {}) {
  for await (const records of csvBatches(chunks, options)) yield* records;
}
