import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { CsvParser, csvRecords } from "./csv.mjs";

/** Feeds `chunks` one after another and returns every record. */
function parse(chunks) {
  const parser = new CsvParser();
  const records = chunks.flatMap((chunk) => parser.push(chunk));
  return [...records, ...parser.end()];
}

const TRICKY =
  'LEI,Name,Note\r\n"A1","Acme, ""The"" Company","line one\r\nline two"\r\nB2,Plain,\n"C3","",""""\rD4,"x\ny",last';
const TRICKY_RECORDS = [
  ["LEI", "Name", "Note"],
  ["A1", 'Acme, "The" Company', "line one\r\nline two"],
  ["B2", "Plain", ""],
  ["C3", "", '"'],
  ["D4", "x\ny", "last"],
];

describe("CsvParser (RFC 4180, streamed)", () => {
  it("reads quoted fields with commas, doubled quotes and line breaks, and CRLF, LF or CR record ends", () => {
    expect(parse([TRICKY])).toEqual(TRICKY_RECORDS);
  });

  it("gives the same records wherever the input is cut, once or twice", () => {
    for (let a = 0; a <= TRICKY.length; a++) {
      expect(parse([TRICKY.slice(0, a), TRICKY.slice(a)]), `cut at ${a}`).toEqual(TRICKY_RECORDS);
      for (let b = a; b <= TRICKY.length; b += 3) {
        expect(parse([TRICKY.slice(0, a), TRICKY.slice(a, b), TRICKY.slice(b)]), `cuts at ${a}, ${b}`).toEqual(
          TRICKY_RECORDS,
        );
      }
    }
  });

  it('holds a quoted field open across chunks, including a chunk boundary between the two quotes of ""', () => {
    expect(parse(['id,name\n1,"Smith ', 'and, ""Sons', '""\nLtd"\n2,x\n'])).toEqual([
      ["id", "name"],
      ["1", 'Smith and, "Sons"\nLtd'],
      ["2", "x"],
    ]);
    expect(parse(['1,"a"', '"b"\n'])).toEqual([["1", 'a"b']]);
    expect(parse(["1,2\r", "\n3,4\r\n"])).toEqual([
      ["1", "2"],
      ["3", "4"],
    ]);
  });

  it("feeds one character at a time", () => {
    expect(parse([...TRICKY])).toEqual(TRICKY_RECORDS);
  });

  it("keeps a last record without a line break, empty trailing fields and empty quoted lines", () => {
    expect(parse(["a,b"])).toEqual([["a", "b"]]);
    expect(parse(["a,\n,b\n"])).toEqual([
      ["a", ""],
      ["", "b"],
    ]);
    expect(parse(['""\n'])).toEqual([[""]]);
    expect(parse(["a,"])).toEqual([["a", ""]]);
  });

  it("skips blank lines and a UTF-8 byte order mark", () => {
    expect(parse(["\uFEFFh1,h2\n\n1,2\r\n\r\n3,4\n\n"])).toEqual([
      ["h1", "h2"],
      ["1", "2"],
      ["3", "4"],
    ]);
  });

  it("is lenient with quotes inside unquoted fields and text after a closing quote", () => {
    expect(parse(['5" screen,"ab"cd,e\n'])).toEqual([['5" screen', "abcd", "e"]]);
  });

  it("refuses a quoted field that never closes", () => {
    const parser = new CsvParser();
    parser.push('a,"open\nstill open');
    expect(() => parser.end()).toThrow(/not closed/);
  });

  it("counts records and reads a byte stream whose UTF-8 characters straddle chunks", async () => {
    const text = 'name,city\n"サンプル株式会社","Zürich"\n';
    const bytes = Buffer.from(text, "utf8");
    const pieces = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    const stream = Readable.from(pieces, { objectMode: false });
    stream.setEncoding("utf8");
    const records = [];
    for await (const record of csvRecords(stream)) records.push(record);
    expect(records).toEqual([
      ["name", "city"],
      ["サンプル株式会社", "Zürich"],
    ]);
  });

  it("streams many records in constant memory (only the current record is held)", () => {
    const parser = new CsvParser();
    let seen = 0;
    const line = '"X","a, b","c ""d"""\r\n';
    for (let i = 0; i < 2_000; i++) seen += parser.push(line.repeat(50)).length;
    seen += parser.end().length;
    expect(seen).toBe(100_000);
    expect(parser.records).toBe(100_000);
  });
});
