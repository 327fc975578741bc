/**
 * Pulls the address out of what people paste: display names (`Ann <ann@x.com>`), `mailto:` links, spreadsheet quoting
 * (`'ann@x.com`, `="ann@x.com"`), surrounding brackets and quotes, trailing punctuation and invisible characters.
 */
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const SPACES = /[\s\u00A0\u2000-\u200A\u202F\u205F\u3000]+/g;
const LEADING = /^(?:[\s'`(<[{]|"(?![^"]*"@))+/;
const TRAILING = /[\s'"`)>\]},;:.!?]+$/;

export function extractAddress(raw: string): string {
  let text = raw.replace(INVISIBLE, "").replace(SPACES, " ").trim();
  const spreadsheet = /^="(.*)"$/s.exec(text);
  if (spreadsheet) text = spreadsheet[1]!;
  const angle = /<([^<>]*@[^<>]*)>\s*$/.exec(text);
  if (angle) text = angle[1]!;
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
  text = text.replace(LEADING, "").replace(TRAILING, "").trim();
  // Quoted local parts keep their quotes; only unbalanced wrappers were removed above.
  const at = text.lastIndexOf("@");
  if (at === -1) return text;
  return `${text.slice(0, at)}@${text.slice(at + 1).toLowerCase()}`;
}
