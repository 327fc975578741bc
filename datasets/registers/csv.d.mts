/** Types of csv.mjs (the streaming RFC 4180 reader), for TypeScript callers such as the Worker tests. */
export interface CsvOptions {
  /** The field separator, one character; `,` by default. */
  delimiter?: string;
}

export declare class CsvParser {
  constructor(options?: CsvOptions);
  /** Complete records so far. */
  records: number;
  /** Parses one chunk; returns the records it completed. */
  push(chunk: string): string[][];
  /** Flushes the last record; throws on an unterminated quoted field. */
  end(): string[][];
}

export declare function csvBatches(chunks: AsyncIterable<string> | Iterable<string>, options?: CsvOptions): AsyncGenerator<string[][]>;

export declare function csvRecords(chunks: AsyncIterable<string> | Iterable<string>, options?: CsvOptions): AsyncGenerator<string[]>;

export declare function headerIndexes(record: string[], columns: readonly string[], label: string): [string, number][];
