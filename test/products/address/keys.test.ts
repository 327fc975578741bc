/**
 * The address key (src/products/address/key.ts, docs/address.md "Address keys"): what folds to one key and what does
 * not. Every row is an address as a request writes it and the key it must fold to; rows with the same key are the
 * same address for repeats, suppressions, dedupe and feedback.
 */
import { describe, expect, it } from "vitest";
import doc from "../../../docs/address.md?raw";
import { addressKey } from "../../../src/products/address/key";
import { lineKeys } from "../../../src/products/address/line-key";
import type { AddressInput } from "../../../src/products/address/result";

const us = (line1: string, line2: string | null = null): AddressInput => ({
  line1,
  line2,
  locality: "New York",
  region: "NY",
  postcode: "10001",
  country: "US",
});
const US = (line1: string, line2 = "") => `US|10001|NEW YORK|NY|${line1}|${line2}`;

/** [case, input, key]. */
const FOLDS: [string, AddressInput, string][] = [
  // Street suffixes (USPS Publication 28, C1), in suffix position only.
  ["Ave", us("350 Fifth Ave"), US("350 FIFTH AVENUE")],
  ["Avenue", us("350 Fifth Avenue"), US("350 FIFTH AVENUE")],
  ["Av.", us("350 Fifth Av."), US("350 FIFTH AVENUE")],
  ["St", us("12 Elm St"), US("12 ELM STREET")],
  ["St.", us("12 Elm St."), US("12 ELM STREET")],
  ["Street", us("12 Elm Street"), US("12 ELM STREET")],
  ["Str", us("12 Elm Str"), US("12 ELM STREET")],
  ["Saint at the end is no suffix", us("12 Elm Saint"), US("12 ELM SAINT")],
  ["Blvd", us("8 Sunset Blvd"), US("8 SUNSET BOULEVARD")],
  ["Rd", us("1 Abbey Rd"), US("1 ABBEY ROAD")],
  ["Dr", us("9 Lake Shore Dr"), US("9 LAKE SHORE DRIVE")],
  ["Ln", us("4 Penny Ln"), US("4 PENNY LANE")],
  ["Ct", us("5 Oak Ct"), US("5 OAK COURT")],
  ["Pkwy", us("100 Eastern Pkwy"), US("100 EASTERN PARKWAY")],
  ["Hwy", us("1 Pacific Coast Hwy"), US("1 PACIFIC COAST HIGHWAY")],
  ["Ter", us("3 Grove Ter"), US("3 GROVE TERRACE")],
  ["Cir", us("7 Dupont Cir"), US("7 DUPONT CIRCLE")],
  ["Sq", us("2 Union Sq"), US("2 UNION SQUARE")],
  ["Pl", us("20 Astor Pl"), US("20 ASTOR PLACE")],
  ["Plz", us("30 Rockefeller Plz"), US("30 ROCKEFELLER PLAZA")],
  ["Trl", us("6 Appalachian Trl"), US("6 APPALACHIAN TRAIL")],
  ["Xing", us("8 Deer Xing"), US("8 DEER CROSSING")],
  ["a suffix word inside the name stays", us("10 Park Ave"), US("10 PARK AVENUE")],
  ["a suffix word as the whole name stays", us("1 Park"), US("1 PARK")],
  ["Avenue Rd: only the last word is the suffix", us("1 Avenue Rd"), US("1 AVENUE ROAD")],
  ["Ave Rd: the name is not expanded", us("1 Ave Rd"), US("1 AVE ROAD")],
  // Saint only as the leading word of a name.
  ["St Marks Pl", us("8 St Marks Pl"), US("8 SAINT MARKS PLACE")],
  ["Saint Marks Place", us("8 Saint Marks Place"), US("8 SAINT MARKS PLACE")],
  ["St. Mark's Pl.", us("8 St. Mark's Pl."), US("8 SAINT MARK S PLACE")],
  ["Mt Vernon", us("3 Mt Vernon St"), US("3 MOUNT VERNON STREET")],
  ["Ft Washington", us("3 Ft Washington Ave"), US("3 FORT WASHINGTON AVENUE")],
  ["a street called St", us("12 St St"), US("12 ST STREET")],
  // Directionals (Publication 28, B), before the name or after the suffix.
  ["N Main St", us("12 N Main St"), US("12 NORTH MAIN STREET")],
  ["North Main Street", us("12 North Main Street"), US("12 NORTH MAIN STREET")],
  ["NW after the suffix", us("1600 Pennsylvania Ave NW"), US("1600 PENNSYLVANIA AVENUE NORTHWEST")],
  ["Northwest after the suffix", us("1600 Pennsylvania Avenue Northwest"), US("1600 PENNSYLVANIA AVENUE NORTHWEST")],
  ["E after the suffix", us("5 Elm St E"), US("5 ELM STREET EAST")],
  ["N St is a name", us("1600 N St NW"), US("1600 N STREET NORTHWEST")],
  ["North St is another name", us("1600 North St NW"), US("1600 NORTH STREET NORTHWEST")],
  ["Avenue E is a name", us("1 Avenue E"), US("1 AVENUE E")],
  // Units (Publication 28, C2): any of Apt, Apartment, #, Unit, Suite, Ste is the unit; in line 1 or line 2.
  ["Apt", us("12 Main St Apt 4"), US("12 MAIN STREET # 4")],
  ["Apartment", us("12 Main Street Apartment 4"), US("12 MAIN STREET # 4")],
  ["#", us("12 Main St #4"), US("12 MAIN STREET # 4")],
  ["Apt. #", us("12 Main St Apt. #4"), US("12 MAIN STREET # 4")],
  ["Unit", us("12 Main St Unit 4"), US("12 MAIN STREET # 4")],
  ["Suite", us("12 Main St Suite 4"), US("12 MAIN STREET # 4")],
  ["Ste", us("12 Main St Ste 4"), US("12 MAIN STREET # 4")],
  ["unit in line 2", us("12 Main St", "Apt 4"), US("12 MAIN STREET # 4")],
  ["letter unit", us("12 Main St Apt B"), US("12 MAIN STREET # B")],
  ["Fl and Rm", us("12 Main St Fl 3 Rm 301"), US("12 MAIN STREET FLOOR 3 ROOM 301")],
  ["Ste Anne is a name", us("4 Ste Anne Rd"), US("4 SAINTE ANNE ROAD")],
  ["Bldg is not an apartment", us("12 Main St Bldg 4"), US("12 MAIN STREET BUILDING 4")],
  // Case, punctuation, whitespace, PO boxes.
  ["upper case and a dot", us("12 MAIN ST."), US("12 MAIN STREET")],
  ["spaces and commas", us("  12   main st ,"), US("12 MAIN STREET")],
  ["hyphenated number kept apart", us("12-14 Main St"), US("12 14 MAIN STREET")],
  ["P.O. Box", us("P.O. Box 12"), US("PO BOX 12")],
  ["PO Box", us("PO Box 12"), US("PO BOX 12")],
  ["Post Office Box", us("Post Office Box 12"), US("PO BOX 12")],
  // Localities keep the place-name table: St Louis is Saint Louis.
  [
    "locality St",
    { line1: "1 Market St", locality: "St. Louis", region: "MO", postcode: "63101", country: "US" },
    "US|63101|SAINT LOUIS|MO|1 MARKET STREET|",
  ],
  ["one line", { address: "350 fifth avenue, New York, NY 10001", country: "us" }, US("350 FIFTH AVENUE")],
  // United Kingdom (Royal Mail suffixes; a flat is a unit in either line).
  ["GB Rd", { address: "10 Downing Rd, London SW1A 2AA", country: "GB" }, "GB|SW1A 2AA|LONDON||10 DOWNING ROAD|"],
  ["GB Gdns", { line1: "4 Kensington Gdns", postcode: "w8 4pt", country: "GB" }, "GB|W8 4PT|||4 KENSINGTON GARDENS|"],
  ["GB Tce", { line1: "4 Royal Tce", postcode: "W8 4PT", country: "GB" }, "GB|W8 4PT|||4 ROYAL TERRACE|"],
  ["GB Cl", { line1: "4 Church Cl", postcode: "W8 4PT", country: "GB" }, "GB|W8 4PT|||4 CHURCH CLOSE|"],
  [
    "GB flat first",
    { address: "Flat 2, 10 Downing Street, London SW1A 2AA", country: "GB" },
    "GB|SW1A 2AA|LONDON||10 DOWNING STREET # 2|",
  ],
  [
    "GB flat second",
    { line1: "10 Downing St", line2: "Flat 2", locality: "London", postcode: "SW1A 2AA", country: "UK" },
    "GB|SW1A 2AA|LONDON||10 DOWNING STREET # 2|",
  ],
  // France: the type leads the name; St is always Saint.
  ["FR Bd", { address: "12 Bd Haussmann, 75009 Paris", country: "FR" }, "FR|75009|PARIS||12 BOULEVARD HAUSSMANN|"],
  [
    "FR boulevard",
    { address: "12 boulevard Haussmann, 75009 Paris", country: "FR" },
    "FR|75009|PARIS||12 BOULEVARD HAUSSMANN|",
  ],
  [
    "FR av.",
    { address: "8 av. des Champs-Élysées, 75008 Paris", country: "FR" },
    "FR|75008|PARIS||8 AVENUE DES CHAMPS ELYSEES|",
  ],
  ["FR r St-Honoré", { address: "5 r. St-Honoré, 75001 Paris", country: "FR" }, "FR|75001|PARIS||5 RUE SAINT HONORE|"],
  [
    "FR rue Saint Honoré",
    { address: "5 rue Saint Honoré, 75001 Paris", country: "FR" },
    "FR|75001|PARIS||5 RUE SAINT HONORE|",
  ],
  [
    "FR bis",
    { address: "12 bis pl. de la Concorde, 75008 Paris", country: "FR" },
    "FR|75008|PARIS||12 BIS PLACE DE LA CONCORDE|",
  ],
  [
    "FR 12B",
    { address: "12B place de la Concorde, 75008 Paris", country: "FR" },
    "FR|75008|PARIS||12 BIS PLACE DE LA CONCORDE|",
  ],
  [
    "FR a type word inside the name stays",
    { address: "3 rue du Pl, 75008 Paris", country: "FR" },
    "FR|75008|PARIS||3 RUE DU PL|",
  ],
  [
    "FR appartement",
    { address: "5 rue de la Paix Appt 12, 75002 Paris", country: "FR" },
    "FR|75002|PARIS||5 RUE DE LA PAIX # 12|",
  ],
  // Germany: Str. is Straße at the end of the name.
  ["DE Str.", { address: "Hauptstr. 5, 10117 Berlin", country: "DE" }, "DE|10117|BERLIN||HAUPTSTRASSE 5|"],
  ["DE Straße", { address: "Hauptstraße 5, 10117 Berlin", country: "DE" }, "DE|10117|BERLIN||HAUPTSTRASSE 5|"],
  ["DE Strasse", { address: "Hauptstrasse 5, 10117 Berlin", country: "DE" }, "DE|10117|BERLIN||HAUPTSTRASSE 5|"],
  [
    "DE Karl-Marx-Str.",
    { address: "Karl-Marx-Str. 12, 10117 Berlin", country: "DE" },
    "DE|10117|BERLIN||KARL MARX STRASSE 12|",
  ],
  [
    "DE St is not expanded",
    { address: "St.-Anna-Platz 1, 10117 Berlin", country: "DE" },
    "DE|10117|BERLIN||ST ANNA PLATZ 1|",
  ],
  // Countries without street rules fold only case, punctuation, spaces and units.
  [
    "IT",
    { line1: "Via Roma 1 int. 4", locality: "Roma", postcode: "00184", country: "IT" },
    "IT|00184|ROMA||VIA ROMA 1 INT 4|",
  ],
  [
    "ES",
    { line1: "Calle Mayor 5, Apt 2", locality: "Madrid", postcode: "28013", country: "ES" },
    "ES|28013|MADRID||CALLE MAYOR 5 # 2|",
  ],
  [
    "NL St stays",
    { line1: "Damrak 1 St", locality: "Amsterdam", postcode: "1012 LG", country: "NL" },
    "NL|1012 LG|AMSTERDAM||DAMRAK 1 ST|",
  ],
];

describe("addressKey", () => {
  it.each(FOLDS)("%s", (_case, input, key) => {
    expect(addressKey(input)).toBe(key);
  });

  /** Pairs that are different addresses and must keep different keys. */
  const APART: [string, AddressInput, AddressInput][] = [
    ["St is not Saint at the end", us("12 Elm St"), us("12 Elm Saint")],
    ["N Street is not North Street", us("1600 N St NW"), us("1600 North St NW")],
    ["Avenue E is not Avenue East", us("1 Avenue E"), us("1 Avenue East")],
    ["building 4 is not apartment 4", us("12 Main St Bldg 4"), us("12 Main St Apt 4")],
    ["12-14 is not 1214", us("12-14 Main St"), us("1214 Main St")],
    ["another unit", us("12 Main St Apt 4"), us("12 Main St Apt 5")],
    ["another postcode", us("12 Main St"), { ...us("12 Main St"), postcode: "10276" } as AddressInput],
    [
      "another country's rules",
      { line1: "12 Elm St", postcode: "10117", country: "DE" },
      { line1: "12 Elm Street", postcode: "10117", country: "DE" },
    ],
  ];
  it.each(APART)("keeps apart: %s", (_case, a, b) => {
    expect(addressKey(a)).not.toBe(addressKey(b));
  });
});

/** docs/address.md's table of inputs and keys: every spelling in a row folds to the row's key. */
it("folds every input of docs/address.md's table to the key it shows", () => {
  const table = doc.slice(doc.indexOf("| Written (line 1, US unless named) |")).split("\n\n")[0]!.split("\n").slice(2);
  expect(table.length).toBeGreaterThan(10);
  for (const row of table) {
    const [, written, key] = row.split(" | ").length === 2 ? ["", ...row.slice(2, -2).split(" | ")] : ["", "", ""];
    const country = /^(GB|FR|DE) /.exec(written!)?.[1] ?? "US";
    const expected = /^`([^`]+)`/.exec(key!)![1]!;
    const inputs = [...written!.matchAll(/`([^`]+)`(?: \+ line 2 `([^`]+)`)?/g)];
    expect(inputs.length, row).toBeGreaterThan(0);
    for (const [, line1, line2] of inputs)
      expect(lineKeys(country, line1!, line2 ?? null), `${country} ${line1} / ${line2}`).toEqual([expected, ""]);
  }
});
