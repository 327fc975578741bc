import { parse } from "tldts";

/**
 * RFC 5322 / 5321 address syntax as mail systems accept it: a dot-atom or quoted-string local part of at most 64
 * octets, an `@`, and a host name of LDH labels with an alphabetic or IDN top-level label; at most 254 octets in all.
 * Internationalised local parts (RFC 6532: UTF-8 in atoms and inside quoted strings) are accepted; internationalised
 * domains are converted to punycode, and a punycode top-level label must be an IDN TLD of the public suffix list, so a
 * character stuck to the end of a domain (`x.comé`) is not read as a made-up TLD. ASCII TLDs are left to DNS (new TLDs
 * appear faster than a bundled list). Address literals (`user@[192.0.2.1]`) are refused: no public mailbox uses them.
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
  const domain = toAsciiHostname(address.slice(at + 1));
  if (!domain || byteLength(local) > 64) return null;
  if (!QUOTED.test(local) && !local.split(".").every((atom) => ATEXT.test(atom))) return null;
  return { local, domain };
}
