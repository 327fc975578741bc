/**
 * How place and street names are compared. A key is the name folded to what survives every common spelling: accents,
 * case, punctuation and the usual abbreviations of place names (`St`/`Saint`, `Mt`, `Ft`, `Twp`, ...). Two names match
 * when their keys are equal, or when one is the other with a qualifier dropped (`Frankfurt` for `Frankfurt am Main`,
 * `Paris` for `Paris 8e Arrondissement`): lookups only ever compare names within one postcode, so that leniency cannot
 * confuse two towns.
 */

/** Whole-word abbreviations in place names, read as the word they stand for (USPS Publication 28, French usage). */
const ABBREVIATIONS: Record<string, string> = {
  ST: "SAINT",
  STE: "SAINTE",
  MT: "MOUNT",
  MTN: "MOUNTAIN",
  FT: "FORT",
  PT: "POINT",
  PK: "PARK",
  TWP: "TOWNSHIP",
  BCH: "BEACH",
  HTS: "HEIGHTS",
  SPGS: "SPRINGS",
  SPG: "SPRING",
  CTR: "CENTER",
  CTY: "CITY",
  VLG: "VILLAGE",
  JCT: "JUNCTION",
  LK: "LAKE",
  LKS: "LAKES",
  IS: "ISLAND",
  HBR: "HARBOR",
  CYN: "CANYON",
  VLY: "VALLEY",
  SPRGS: "SPRINGS",
  N: "NORTH",
  S: "SOUTH",
  E: "EAST",
  W: "WEST",
};

/** Street-type abbreviations (English, French, German) for street names only: `ST` stays `SAINT` in place names. */
const STREET_ABBREVIATIONS: Record<string, string> = {
  AV: "AVENUE",
  AVE: "AVENUE",
  BD: "BOULEVARD",
  BLVD: "BOULEVARD",
  BVD: "BOULEVARD",
  PL: "PLACE",
  RD: "ROAD",
  DR: "DRIVE",
  LN: "LANE",
  CT: "COURT",
  SQ: "SQUARE",
  CRES: "CRESCENT",
  STR: "STRASSE",
  CHE: "CHEMIN",
  IMP: "IMPASSE",
  RTE: "ROUTE",
  ALL: "ALLEE",
  FBG: "FAUBOURG",
};

/** Upper case, accents dropped, ß -> SS, everything but letters and digits a single space. */
export function fold(value: string): string {
  return value
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/ß/g, "ss")
    .replace(/[æÆ]/g, "ae")
    .replace(/[œŒ]/g, "oe")
    .replace(/[øØ]/g, "o")
    .replace(/[łŁ]/g, "l")
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

const expand = (folded: string, table: Record<string, string>) =>
  folded
    .split(" ")
    .filter(Boolean)
    .map((word) => table[word] ?? word)
    .join(" ");

/** French registers write a leading article after the name in brackets: `MONT (LE)` is `Le Mont`. */
/** The key of a place name. */
export const placeKey = (name: string) =>
  expand(fold(name.trim().replace(/^(.+?)\s*\((le|la|les|l')\)$/i, "$2 $1")), ABBREVIATIONS);

/** The key of a street name. */
export const streetKey = (name: string) => expand(expand(fold(name), STREET_ABBREVIATIONS), { ST: "STREET" });

/**
 * A place key without the qualifiers that name the same place: bracketed parts, French `CEDEX nn`, arrondissement
 * numbers, and German river and district qualifiers (`am Main`, `an der Oder`, `i. Br.`, `Stadt`).
 */
export function baseKey(name: string): string {
  const unbracketed = name.replace(/\([^)]*\)/g, " ").replace(/,.*$/, " ");
  return placeKey(unbracketed)
    .replace(/\bCEDEX( \d+)?\b/g, " ")
    .replace(/\b\d+(E|ER|EME)?( ARRONDISSEMENT)?\b/g, " ")
    .replace(/\b(AM|AN DER|AN DEN|IM|IN DER|OB DER|BEI|I|A D)( [A-Z]+)$/g, " ")
    .replace(/\bSTADT\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const startsWithWords = (long: string, short: string) =>
  short.length > 0 && (long === short || long.startsWith(`${short} `));

/** Whether a locality as written names the same place as a reference name (see the file comment). */
export function samePlace(written: string, reference: string): boolean {
  const [a, b] = [placeKey(written), placeKey(reference)];
  if (a === b) return true;
  const [baseA, baseB] = [baseKey(written), baseKey(reference)];
  return baseA.length > 0 && (baseA === baseB || startsWithWords(baseB, baseA) || startsWithWords(baseA, baseB));
}

/** A PO box, boîte postale, Postfach, apartado or casilla in an address line. */
const PO_BOX =
  /\b(P\s*\.?\s*O\s*\.?\s*BOX|POST\s+OFFICE\s+BOX|POBOX|PO\s+BOX|BOX\s+\d+|B\s*\.?\s*P\s*\.?\s*\d+|BOITE\s+POSTALE|POSTFACH|APARTADO(\s+DE\s+CORREOS)?|CASILLA(\s+DE\s+CORREO)?|CAIXA\s+POSTAL|CASELLA\s+POSTALE|POSTBUS|POSTBOKS)\b/;

export const isPoBox = (line: string | null) => line !== null && PO_BOX.test(fold(line));
