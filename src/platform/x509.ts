/**
 * Just enough DER reading to take the public key out of an X.509 certificate (RFC 5280): WebCrypto imports a
 * SubjectPublicKeyInfo, not a certificate. Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL,
 * serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, ... }, ... }.
 */
interface Element {
  tag: number;
  /** Where the element starts (its tag), where its content starts, and where it ends. */
  offset: number;
  start: number;
  end: number;
}

function element(der: Uint8Array, offset: number): Element {
  const tag = der[offset];
  const first = der[offset + 1];
  if (tag === undefined || first === undefined) throw new Error("truncated DER");
  let length = first;
  let header = 2;
  if (first & 0x80) {
    const bytes = first & 0x7f;
    if (bytes < 1 || bytes > 4) throw new Error("unsupported DER length");
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + (der[offset + 2 + i] ?? 0);
    header = 2 + bytes;
  }
  const end = offset + header + length;
  if (end > der.length) throw new Error("truncated DER");
  return { tag, offset, start: offset + header, end };
}

const SEQUENCE = 0x30;
const VERSION = 0xa0;

/** The SubjectPublicKeyInfo of a DER certificate; throws when the bytes are not one. */
export function certificatePublicKey(der: Uint8Array): Uint8Array {
  const certificate = element(der, 0);
  const tbs = element(der, certificate.start);
  if (certificate.tag !== SEQUENCE || tbs.tag !== SEQUENCE) throw new Error("not a certificate");
  const fields: Element[] = [];
  for (let at = tbs.start; at < tbs.end && fields.length < 7; at = fields.at(-1)!.end) fields.push(element(der, at));
  const spki = fields[(fields[0]?.tag === VERSION ? 1 : 0) + 5];
  if (spki?.tag !== SEQUENCE) throw new Error("no subjectPublicKeyInfo");
  return der.slice(spki.offset, spki.end);
}

/** The DER bytes of the first certificate in a PEM text. */
export function pemCertificate(pem: string): Uint8Array {
  const body = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem)?.[1];
  if (!body) throw new Error("no PEM certificate");
  return Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
}
