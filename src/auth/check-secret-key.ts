import { database } from "../db/client";
import { holderLeft, revokedByPerson } from "../db/keys";
import { sha256Hex } from "../platform/tokens";
import type { Principal } from "../types";
import { findKeyByHash } from "./key-lookup";
import { KEY_PATTERNS } from "./keys";
import type { Scope } from "./scopes";
import { isAllowedSource } from "./source-allowlist";

export type SecretPrincipal = Extract<Principal, { kind: "secret" }>;

/** Why a secret key may not act, with the code the API answers it with (docs/authentication.md). */
export interface KeyRefusal {
  code: "UNAUTHENTICATED" | "EMAIL_NOT_VERIFIED" | "KEY_ACCOUNT_MISMATCH" | "KEY_IP_NOT_ALLOWED";
  message: string;
}

export type KeyCheck = { ok: true; principal: SecretPrincipal } | { ok: false; refusal: KeyRefusal };

const refuse = (code: KeyRefusal["code"], message: string): KeyCheck => ({ ok: false, refusal: { code, message } });

/**
 * The checks of a secret key that need no request, in the API's order: unknown or revoked, the account's email not
 * verified, its holder no longer a member, the source off its allowlist. Every surface that takes a pasted or sent key
 * (the API's middleware, the dashboard's try it and bulk upload) asks this one function, so they refuse alike.
 * `source` is the caller's address (`CF-Connecting-IP`), which the allowlist judges.
 */
export async function checkSecretKey(env: Env, token: string, source: string | undefined): Promise<KeyCheck> {
  if (!KEY_PATTERNS.secret.test(token)) return refuse("UNAUTHENTICATED", "The key is not a well-formed secret key.");
  const key = await findKeyByHash(database(env), await sha256Hex(token), source);
  if (key?.kind !== "secret" || revokedByPerson(key) !== null)
    return refuse("UNAUTHENTICATED", "The key is unknown or revoked.");
  if (!key.emailVerified)
    return refuse("EMAIL_NOT_VERIFIED", "Confirm the account's email address before using its keys.");
  if (holderLeft(key)) return refuse("KEY_ACCOUNT_MISMATCH", "The key's holder is no longer a member of its account.");
  if (key.allowedIps.length > 0 && !isAllowedSource(key.allowedIps, source))
    return refuse("KEY_IP_NOT_ALLOWED", `Requests from ${source ?? "unknown"} are not on this key's source allowlist.`);
  return {
    ok: true,
    principal: {
      kind: "secret",
      keyId: key.id,
      accountId: key.accountId,
      userId: key.userId,
      scopes: key.scopes as Scope[],
      dailyCreditCap: key.dailyCreditCap,
    },
  };
}
