import { getDomainWithoutSuffix } from "tldts";

/**
 * Words of a company name that say what kind of company it is, not which one (docs/consistency.md, "Name resemblance").
 */
export const LEGAL_FORM_WORDS = [
  "the",
  "and",
  "of",
  "limited",
  "ltd",
  "plc",
  "llp",
  "lp",
  "llc",
  "inc",
  "incorporated",
  "corp",
  "corporation",
  "co",
  "company",
  "gmbh",
  "mbh",
  "ag",
  "kg",
  "sa",
  "sas",
  "sarl",
  "srl",
  "spa",
  "bv",
  "nv",
  "ab",
  "as",
  "asa",
  "oy",
  "oyj",
  "pty",
  "pte",
  "kk",
] as const;

const IGNORED = new Set<string>(LEGAL_FORM_WORDS);

/** Letters and digits only, lower case, accents dropped. */
const fold = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();

export const nameWords = (name: string) =>
  fold(name.replace(/&/g, " and "))
    .split(/[^a-z0-9]+/)
    .filter((word) => word && !IGNORED.has(word));

/**
 * Whether a mail domain looks like the company's own: its registrable label (`samplewidgets` of `samplewidgets.co.uk`)
 * equals the name's words run together or their initials (two or more), contains a name word of 4+ characters, or is a
 * 4+ character part of the words run together.
 */
export function domainResemblesName(domain: string, name: string): boolean {
  const label = fold(getDomainWithoutSuffix(domain) ?? domain).replace(/[^a-z0-9]/g, "");
  const words = nameWords(name);
  if (!label || !words.length) return false;
  const joined = words.join("");
  const initials = words.map((word) => word[0]).join("");
  return (
    label === joined ||
    (initials.length >= 2 && label === initials) ||
    words.some((word) => word.length >= 4 && label.includes(word)) ||
    (label.length >= 4 && joined.includes(label))
  );
}
