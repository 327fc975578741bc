import { CsvParser } from "../datasets/registers/csv.mjs";
import gleifCsv from "../datasets/registers/gleif-lei.sample.csv?raw";
import ukCsv from "../datasets/registers/uk-companies-house.sample.csv?raw";
import { leiCheckDigits } from "../src/products/entity/identifiers";
import { REGISTERS, type RegisterName, type RegisterRow } from "../src/products/entity/registers";
import type { Coverage } from "../src/db/coverage";
import { admin } from "./helpers";

const SAMPLE_TEXT: Record<RegisterName, string> = { "gleif-lei": gleifCsv, "uk-companies-house": ukCsv };

/**
 * A shipped sample read the way scripts/import-register.mjs reads a file: the CSV parser, then the register's parseRow.
 */
export function sampleRows(register: RegisterName): RegisterRow[] {
  const parser = new CsvParser();
  const [header, ...records] = [...parser.push(SAMPLE_TEXT[register]), ...parser.end()];
  const columns = header!.map((name) => name.trim());
  return records.flatMap((record) => {
    const fields = Object.fromEntries(
      REGISTERS[register].columns.map((column) => [column, record[columns.indexOf(column)] ?? ""]),
    );
    const row = REGISTERS[register].parseRow(fields);
    return row ? [row] : [];
  });
}

export const SAMPLE_VERSION = "2026-11-22-sample";

/**
 * Installs a shipped sample through the operator routes, as `npm run datasets:import` does. By default it stands in
 * for the whole register (`full`, as a real file is recorded), so a number it lacks is `unknown_identifier`; the
 * coverage tests install it as the `sample` it is.
 */
export async function installSample(
  register: RegisterName,
  version = SAMPLE_VERSION,
  coverage: Coverage = REGISTERS[register].coverage,
) {
  const rows = sampleRows(register);
  for (let i = 0; i < rows.length; i += 20)
    await admin("POST", `/registers/${register}/rows`, { rows: rows.slice(i, i + 20) });
  await admin("POST", `/registers/${register}/complete`, { version, records: rows.length, coverage });
  return rows;
}

/** Installs both samples. */
export const installSamples = async () => ({
  gleif: await installSample("gleif-lei"),
  uk: await installSample("uk-companies-house"),
});

/** Sample LEIs and company numbers the tests name (see datasets/registers/README.md). */
export const LEI = {
  widgets: "SMPL00WIDGETS0000178", // ISSUED, points at UK 09900001 (active)
  dissolved: "SMPL00DISSOLVED00370", // ISSUED, points at UK 09900006 (dissolved)
  lapsedDissolved: "SMPL00CLOSED00000532", // LAPSED, points at UK 09900023 (dissolved)
  german: "SMPL00BEISPIEL001233", // ISSUED, points at RA000548 (a register not held here)
  japanese: "SMPL00KABUSHIKI01947",
  holdings: "SMPL00HOLDINGS000268",
  scottish: "SMPL00SCOTTISH000653",
  energy: "SMPL00ENERGY00003279",
  retail: "SMPL00RETAIL00002914",
  software: "SMPL00SOFTWARE003069",
} as const;

/** A checksum-valid LEI made from an 18-character base. */
export const makeLei = (base: string) => `${base}${leiCheckDigits(base)}`;

/** Checksum-valid but in no register. */
export const UNKNOWN_LEI = makeLei("SMPL00NOWHERE00000");
