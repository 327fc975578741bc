import { z } from "zod";
import { forgetKey } from "../auth/key-lookup";
import { mintKey } from "../auth/keys";
import { newId } from "../platform/tokens";
import { SCOPES } from "../auth/scopes";
import { parseRange } from "../auth/source-allowlist";
import { setFeedbackKeyHash } from "../db/accounts";
import { accountKey, accountKeys, insertApiKey, revokeApiKey, type ApiKey } from "../db/api-keys";
import { database } from "../db/client";

/**
 * Keys as the dashboard manages them: every key is held by the member who creates it, so it answers
 * KEY_ACCOUNT_MISMATCH once that member leaves. The rules are the operator API's (docs/authentication.md).
 */

/** Form fields arrive as text: lists are one entry per line or comma, an empty cap is no cap. */
const list = (value: unknown) =>
  typeof value === "string"
    ? value
        .split(/[\s,]+/)
        .map((v) => v.trim())
        .filter(Boolean)
    : Array.isArray(value)
      ? value.filter((v): v is string => typeof v === "string")
      : [];
const optionalText = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

const cap = z.preprocess(optionalText, z.coerce.number().int().min(1).max(100_000_000).optional());
const hostname = z
  .string()
  .max(253)
  .regex(
    /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i,
    "Must be a host name, optionally `*.` first.",
  );

export const secretKeyForm = z.object({
  scopes: z.preprocess(list, z.array(z.enum(SCOPES)).min(1, "Choose at least one scope.")),
  allowed_ips: z.preprocess(
    list,
    z.array(z.string().refine((e) => parseRange(e) !== null, "Must be an IPv4/IPv6 address or CIDR range.")).max(100),
  ),
  daily_credit_cap: cap,
});

export const publishableKeyForm = z
  .object({
    allowed_domains: z.preprocess(list, z.array(hostname).min(1, "Name at least one domain.").max(50)),
    daily_credit_cap: cap,
    challenge_site_key: z.preprocess(optionalText, z.string().max(256).optional()),
    challenge_secret: z.preprocess(optionalText, z.string().max(256).optional()),
  })
  .refine((f) => Boolean(f.challenge_site_key) === Boolean(f.challenge_secret), {
    message: "Give both the site key and the secret, or neither.",
    path: ["challenge_secret"],
  });

export interface NewKey {
  row: ApiKey;
  /** Shown once, on the page that answers the creation; never stored. */
  key: string;
}

export async function createSecretKey(
  env: Env,
  accountId: string,
  userId: string,
  form: z.infer<typeof secretKeyForm>,
): Promise<NewKey> {
  const minted = await mintKey("secret");
  const row = await insertApiKey(database(env), {
    id: newId("key"),
    accountId,
    userId,
    kind: "secret",
    keyHash: minted.hash,
    hint: minted.hint,
    scopes: form.scopes,
    allowedIps: form.allowed_ips,
    dailyCreditCap: form.daily_credit_cap ?? null,
    createdAt: Date.now(),
  });
  return { row, key: minted.key };
}

export async function createPublishableKey(
  env: Env,
  accountId: string,
  userId: string,
  form: z.infer<typeof publishableKeyForm>,
): Promise<NewKey> {
  const minted = await mintKey("publishable");
  const row = await insertApiKey(database(env), {
    id: newId("key"),
    accountId,
    userId,
    kind: "publishable",
    keyHash: minted.hash,
    hint: minted.hint,
    allowedDomains: form.allowed_domains.map((d) => d.toLowerCase()),
    dailyCreditCap: form.daily_credit_cap ?? null,
    challengeSiteKey: form.challenge_site_key ?? null,
    challengeSecret: form.challenge_secret ?? null,
    createdAt: Date.now(),
  });
  return { row, key: minted.key };
}

export const listKeys = (env: Env, accountId: string) => accountKeys(database(env), accountId);

/** Revokes a key of this account (a key id of another account is not found); it stops working at once here. */
export async function revokeKey(env: Env, accountId: string, keyId: string): Promise<boolean> {
  const db = database(env);
  if (!(await accountKey(db, accountId, keyId))) return false;
  const row = await revokeApiKey(db, keyId, Date.now());
  if (row) forgetKey(row.keyHash);
  return true;
}

/** A new `fb_` key for the account; the previous one stops working at once. */
export async function rotateFeedbackKey(env: Env, accountId: string): Promise<string> {
  const minted = await mintKey("feedback");
  await setFeedbackKeyHash(database(env), accountId, minted.hash);
  return minted.key;
}
