import { parse } from "tldts";

/**
 * RFC 5322 / 5321 address syntax as mail systems accept it: a dot-atom or quoted-string local part of at most 64
 * octets, an `@`, and a host name of LDH labels with an alphabetic or IDN top-level label; at most 254 octets in all.
 * Internationalised local parts (RFC 6532: UTF-8 in atoms and inside quoted strings) are accepted; internationalised
 * domains are converted to punycode, and a punycode top-level label must be an IDN TLD of the public suffix list, so a
 * character stuck to the end of a domain (`x.comé`) is not read as a made-up TLD. ASCII TLDs are left to DNS (new TLDs
 * appear faster than a bundled list). A trailing dot and compatibility characters in the domain are refused (RFC 5321,
 * RFC 5892). Address literals (`user@[192.0.2.1]`) are refused: no public mailbox uses them.
 */
export interface ParsedAddress {
  local: string;
  /** Lowercase, punycode. */
  domain: string;
}

/** RFC 5322 atext plus RFC 6532's UTF8-non-ascii, less separators and control or invisible characters. */
const ATEXT = /^(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[^\x00-\x7F\p{Z}\p{C}])+$/u;
/** RFC 5322 quoted-string with RFC 6532's UTF8-non-ascii allowed as qtext and in quoted pairs. */
const QUOTED = /^"([\x20\x21\x23-\x5B\x5D-\x7E]|[^\x00-\x7F]|\\[\x20-\x7E]|\\[^\x00-\x7F])*"$/u;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const byteLength = (s: string) => new TextEncoder().encode(s).length;

/** Lowercase punycode host name, or null when it is not a valid public host name. */
export function toAsciiHostname(input: string): string | null {
  const raw = input.trim().replace(/\.$/, "");
  if (!raw || raw.length > 253 || /[\s/\\?#@:[\]%]/.test(raw)) return null;
  let host: string;
  try {
    host = new URL(`http://${raw}`).hostname;
  } catch {
    return null;
  }
  const labels = host.split(".");
  if (labels.length < 2 || host.length > 253) return null;
  if (!labels.every((label) => LABEL.test(label))) return null;
  const tld = labels.at(-1)!;
  if (tld.startsWith("xn--")) return parse(host).isIcann ? host : null;
  if (!/^[a-z]{2,63}$/.test(tld)) return null;
  return host;
}

export function parseAddress(address: string): ParsedAddress | null {
  if (byteLength(address) > 254) return null;
  const at = address.lastIndexOf("@");
  if (at <= 0) return null;
  const local = address.slice(0, at);
  const written = address.slice(at + 1);
  // RFC 5321 4.1.2: a Domain is sub-domains joined by dots, with no trailing dot (that is DNS's notation, not mail's).
  // RFC 6531 3.3 wants IDNA2008 labels, where compatibility forms (fullwidth `ｇｍａｉｌ`) are DISALLOWED (RFC 5892):
  // the URL parser would quietly map them to ASCII, so they are refused before it.
  if (written.endsWith(".") || written.normalize("NFKC") !== written.normalize("NFC")) return null;
  const domain = toAsciiHostname(written);
  if (!domain || byteLength(local) > 64) return null;
  if (!QUOTED.test(local) && !local.split(".").every((atom) => ATEXT.test(atom))) return null;
  return { local, domain };
}
