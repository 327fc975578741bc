import { z } from "zod";
import { insertApiKey, revokeApiKey, type ApiKey } from "../db/api-keys";
import type { Database } from "../db/client";
import { newId } from "../platform/tokens";
import { forgetKey } from "./key-lookup";
import { mintKey } from "./keys";
import type { Scope } from "./scopes";

/** A publishable key's allowed site: a host name, optionally `*.` first (the operator API and the dashboard). */
export const allowedDomain = z
  .string()
  .max(253)
  .regex(
    /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i,
    "Must be a host name, optionally `*.` first.",
  );

export interface NewKey {
  row: ApiKey;
  /** Shown once, on the answer that creates it; never stored. */
  key: string;
}

export interface SecretKeyGrant {
  accountId: string;
  /** The member holding it: the key answers KEY_ACCOUNT_MISMATCH once they leave. */
  userId: string;
  scopes: Scope[];
  allowedIps: string[];
  dailyCreditCap: number | null;
}

export interface PublishableKeyGrant {
  accountId: string;
  userId: string | null;
  allowedDomains: string[];
  dailyCreditCap: number | null;
  challenge: { siteKey: string; secret: string } | null;
}

/** Issues a secret key: the one way one is made, for the operator API and the dashboard alike. */
export async function issueSecretKey(db: Database, grant: SecretKeyGrant): Promise<NewKey> {
  const minted = await mintKey("secret");
  const row = await insertApiKey(db, {
    id: newId("key"),
    accountId: grant.accountId,
    userId: grant.userId,
    kind: "secret",
    keyHash: minted.hash,
    hint: minted.hint,
    scopes: grant.scopes,
    allowedIps: grant.allowedIps,
    dailyCreditCap: grant.dailyCreditCap,
    createdAt: Date.now(),
  });
  return { row, key: minted.key };
}

/** Issues a publishable key (domains kept lower case, as the Origin check compares them). */
export async function issuePublishableKey(db: Database, grant: PublishableKeyGrant): Promise<NewKey> {
  const minted = await mintKey("publishable");
  const row = await insertApiKey(db, {
    id: newId("key"),
    accountId: grant.accountId,
    userId: grant.userId,
    kind: "publishable",
    keyHash: minted.hash,
    hint: minted.hint,
    allowedDomains: grant.allowedDomains.map((d) => d.toLowerCase()),
    dailyCreditCap: grant.dailyCreditCap,
    challengeSiteKey: grant.challenge?.siteKey ?? null,
    challengeSecret: grant.challenge?.secret ?? null,
    createdAt: Date.now(),
  });
  return { row, key: minted.key };
}

/** Revokes a key; it stops working at once in this isolate too. Null when no such key. */
export async function revokeKey(db: Database, keyId: string): Promise<ApiKey | null> {
  const row = await revokeApiKey(db, keyId, Date.now());
  if (row) forgetKey(row.keyHash);
  return row ?? null;
}
