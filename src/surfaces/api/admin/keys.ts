import { Hono } from "hono";
import { z } from "zod";
import { allowedDomain, issuePublishableKey, issueSecretKey, revokeKey } from "../../../auth/issue-key";
import { SCOPES } from "../../../auth/scopes";
import { parseRange } from "../../../auth/source-allowlist";
import type { ApiKey } from "../../../db/api-keys";
import { database, type Database } from "../../../db/client";
import { revokedByPerson } from "../../../db/keys";
import { isMember } from "../../../db/members";
import { putSetting } from "../../../db/settings";
import { ok } from "../../../http/envelope";
import { notFound, validationFailed } from "../../../http/errors";
import { jsonBody, pathParams } from "../../../http/validation";
import type { AppEnv } from "../../../types";
import { accountParam, findAccount } from "./accounts";

const dailyCreditCap = z.int().min(1).nullish();

const secretKeyBody = z.object({
  user_id: z.string().max(64),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .default([...SCOPES]),
  allowed_ips: z
    .array(z.string().refine((entry) => parseRange(entry) !== null, "Must be an IPv4/IPv6 address or CIDR range."))
    .max(100)
    .default([]),
  daily_credit_cap: dailyCreditCap,
});

const publishableKeyBody = z.object({
  user_id: z.string().max(64).nullish(),
  allowed_domains: z.array(allowedDomain).min(1).max(50),
  daily_credit_cap: dailyCreditCap,
  challenge: z.object({ site_key: z.string().min(1).max(256), secret: z.string().min(1).max(256) }).nullish(),
});

async function assertMember(db: Database, accountId: string, userId: string) {
  if (!(await isMember(db, accountId, userId))) throw validationFailed({ user_id: ["Not a member of this account."] });
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const keyView = (row: ApiKey) => ({
  id: row.id,
  account_id: row.accountId,
  user_id: row.userId,
  type: row.kind,
  hint: row.hint,
  scopes: row.kind === "secret" ? row.scopes : [],
  allowed_ips: row.allowedIps,
  allowed_domains: row.allowedDomains,
  daily_credit_cap: row.dailyCreditCap,
  challenge_site_key: row.challengeSiteKey,
  created_at: new Date(row.createdAt).toISOString(),
  revoked_at: iso(revokedByPerson(row)),
  holder_left_at: iso(row.holderLeftAt),
});

/** Secret and publishable keys (shown once at creation), revocation, and the sandbox switch. */
export const adminKeyRoutes = new Hono<AppEnv>()
  .post("/accounts/:accountId/keys/secret", accountParam, jsonBody(secretKeyBody), async (c) => {
    const { accountId } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = database(c.env);
    await findAccount(db, accountId);
    await assertMember(db, accountId, body.user_id);
    const { row, key } = await issueSecretKey(db, {
      accountId,
      userId: body.user_id,
      scopes: body.scopes,
      allowedIps: body.allowed_ips,
      dailyCreditCap: body.daily_credit_cap ?? null,
    });
    return ok(c, { ...keyView(row), key }, {}, 201);
  })
  .post("/accounts/:accountId/keys/publishable", accountParam, jsonBody(publishableKeyBody), async (c) => {
    const { accountId } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = database(c.env);
    await findAccount(db, accountId);
    if (body.user_id) await assertMember(db, accountId, body.user_id);
    const { row, key } = await issuePublishableKey(db, {
      accountId,
      userId: body.user_id ?? null,
      allowedDomains: body.allowed_domains,
      dailyCreditCap: body.daily_credit_cap ?? null,
      challenge: body.challenge ? { siteKey: body.challenge.site_key, secret: body.challenge.secret } : null,
    });
    return ok(c, { ...keyView(row), key }, {}, 201);
  })
  .on("DELETE", "/keys/:keyId", pathParams(z.object({ keyId: z.string().max(64) })), async (c) => {
    const { keyId } = c.req.valid("param");
    const current = await revokeKey(database(c.env), keyId);
    if (!current) throw notFound("Key");
    return ok(c, keyView(current));
  })
  .put("/sandbox", jsonBody(z.object({ enabled: z.boolean() })), async (c) => {
    const { enabled } = c.req.valid("json");
    await putSetting(database(c.env), "sandbox_enabled", String(enabled));
    return ok(c, { sandbox_enabled: enabled });
  });
