/**
 * Pulls the address out of what people paste: display names (`Ann <ann@x.com>`, also with the `,` or `;` that follows
 * it on a mail client's To: line), `mailto:` links, a label (`Email: ann@x.com`), a trailing comment
 * (`ann@x.com (Ann)`), spreadsheet quoting (`'ann@x.com`, `="ann@x.com"`), straight and typographic quotes,
 * surrounding brackets, trailing punctuation and invisible characters. A quoted local part (with escaped quotes inside)
 * keeps its quotes.
 */
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const SPACES = /[\s\u00A0\u2000-\u200A\u202F\u205F\u3000]+/g;
const TYPOGRAPHIC_QUOTES = "\u2018\u2019\u201A\u201B\u201C\u201D\u201E\u201F\u00AB\u00BB\u2039\u203A";
/** What follows the opening quote of a quoted-string local part: `..."@`, escaped characters (`\"`) allowed inside. */
const QUOTED_REST = String.raw`(?:[^"\\]|\\.)*"@`;
const LEADING = new RegExp(`^(?:[\\s'\`(<[{${TYPOGRAPHIC_QUOTES}]|"(?!${QUOTED_REST}))+`, "u");
const TRAILING = new RegExp(`[\\s'"\`)>\\]},;:.!?\u3002\uFF0E\uFF61${TYPOGRAPHIC_QUOTES}]+$`, "u");
/** A display name's angle address, at the end or followed by the separator of a recipient list. */
const ANGLE = /<([^<>]*@[^<>]*)>[\s,;]*$/;
/** `Email:`, `E-mail address:`, `To:`: a short label before the address (mailto: is handled on its own). */
const LABEL = /^(?!mailto:)[\p{L}][\p{L} _-]{0,30}:\s*(?=[^\s:]*@)/iu;
/** An RFC 5322 comment after the address: `ann@x.com (Ann Lee)`. */
const COMMENT = /@[^()]*?(\s*\([^()]*\)[\s,;]*)$/;

export function extractAddress(raw: string): string {
  let text = raw.replace(INVISIBLE, "").replace(SPACES, " ").trim();
  const spreadsheet = /^="(.*)"$/s.exec(text);
  if (spreadsheet) text = spreadsheet[1]!;
  const angle = ANGLE.exec(text);
  if (angle) text = angle[1]!;
  text = text.replace(LABEL, "");
  const comment = COMMENT.exec(text);
  if (comment) text = text.slice(0, text.length - comment[0].length + comment[0].indexOf(comment[1]!));
  text = text.replace(/^mailto:/i, "");
  const query = text.indexOf("?", text.indexOf("@"));
  if (query !== -1) text = text.slice(0, query);
  if (/%[0-9a-f]{2}/i.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      // Not percent-encoding after all: keep the text as it is.
    }
  }
  const literal = /@\[[^\]\s]*\]/.test(text);
  text = text.replace(LEADING, "").replace(TRAILING, "").trim();
  // An address literal keeps its closing bracket (`user@[192.0.2.1]` is refused as a literal, not echoed half-read).
  if (literal && /@\[[^\]]*$/.test(text)) text += "]";
  const at = text.lastIndexOf("@");
  if (at === -1) return text;
  return `${text.slice(0, at)}@${text.slice(at + 1).toLowerCase()}`;
}
