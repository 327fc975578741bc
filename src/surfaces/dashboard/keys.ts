import { z } from "zod";
export type { NewKey } from "../../auth/issue-key";
import { allowedDomain, issuePublishableKey, issueSecretKey, revokeKey, type NewKey } from "../../auth/issue-key";
import { mintKey } from "../../auth/keys";
import { SCOPES } from "../../auth/scopes";
import { parseRange } from "../../auth/source-allowlist";
import { setFeedbackKeyHash } from "../../db/accounts";
import { accountKey, accountKeys } from "../../db/api-keys";
import { database } from "../../db/client";

/**
 * Keys as the dashboard manages them: every key is held by the member who creates it, so it answers
 * KEY_ACCOUNT_MISMATCH once that member leaves. Issued and revoked by the same functions as the operator API's
 * (src/auth/issue-key.ts); the forms only read text fields into them (docs/authentication.md).
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
    allowed_domains: z.preprocess(list, z.array(allowedDomain).min(1, "Name at least one domain.").max(50)),
    daily_credit_cap: cap,
    challenge_site_key: z.preprocess(optionalText, z.string().max(256).optional()),
    challenge_secret: z.preprocess(optionalText, z.string().max(256).optional()),
  })
  .refine((f) => Boolean(f.challenge_site_key) === Boolean(f.challenge_secret), {
    message: "Give both the site key and the secret, or neither.",
    path: ["challenge_secret"],
  });

export async function createSecretKey(
  env: Env,
  accountId: string,
  userId: string,
  form: z.infer<typeof secretKeyForm>,
): Promise<NewKey> {
  return issueSecretKey(database(env), {
    accountId,
    userId,
    scopes: form.scopes,
    allowedIps: form.allowed_ips,
    dailyCreditCap: form.daily_credit_cap ?? null,
  });
}

export async function createPublishableKey(
  env: Env,
  accountId: string,
  userId: string,
  form: z.infer<typeof publishableKeyForm>,
): Promise<NewKey> {
  const { challenge_site_key: siteKey, challenge_secret: secret } = form;
  return issuePublishableKey(database(env), {
    accountId,
    userId,
    allowedDomains: form.allowed_domains,
    dailyCreditCap: form.daily_credit_cap ?? null,
    challenge: siteKey && secret ? { siteKey, secret } : null,
  });
}

export const listKeys = (env: Env, accountId: string) => accountKeys(database(env), accountId);

/** Revokes a key of this account (a key id of another account is not found); it stops working at once here. */
export async function revokeAccountKey(env: Env, accountId: string, keyId: string): Promise<boolean> {
  const db = database(env);
  if (!(await accountKey(db, accountId, keyId))) return false;
  await revokeKey(db, keyId);
  return true;
}

/** A new `fb_` key for the account; the previous one stops working at once. */
export async function rotateFeedbackKey(env: Env, accountId: string): Promise<string> {
  const minted = await mintKey("feedback");
  await setFeedbackKeyHash(database(env), accountId, minted.hash);
  return minted.key;
}
