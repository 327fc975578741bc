import { randomToken, sha256Hex } from "../platform/tokens";

export const KEY_FORMATS = {
  secret: { prefix: "sk_live_", length: 40 },
  publishable: { prefix: "pk_live_", length: 32 },
  feedback: { prefix: "fb_", length: 40 },
} as const;

export type KeyKind = keyof typeof KEY_FORMATS;

/** The published sandbox key (docs/authentication.md). It belongs to no account and never costs credits. */
export const SANDBOX_KEY = "sk_test_public_sandbox";

/** Well-formed keys only: a malformed key is rejected without touching the database. */
export const KEY_PATTERNS: Record<KeyKind, RegExp> = {
  secret: /^sk_live_[0-9A-Za-z]{32,64}$/,
  publishable: /^pk_live_[0-9A-Za-z]{24,56}$/,
  feedback: /^fb_[0-9A-Za-z]{32,64}$/,
};

export interface MintedKey {
  /** Shown once to whoever created it; never stored. */
  key: string;
  hash: string;
  /** Safe to show later: prefix, first characters, last four. */
  hint: string;
}

export async function mintKey(kind: KeyKind): Promise<MintedKey> {
  const { prefix, length } = KEY_FORMATS[kind];
  const key = prefix + randomToken(length);
  return { key, hash: await sha256Hex(key), hint: `${key.slice(0, prefix.length + 4)}...${key.slice(-4)}` };
}
