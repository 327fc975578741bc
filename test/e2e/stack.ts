import { inject } from "vitest";
import { SITEVERIFY_SECRET } from "../fixtures/constants";

export const { base, adminToken, receiverUrl, stripeUrl, browser, outputDir } = inject("e2e");

/** The API's origin under the name a browser page uses, so publishable keys allowed for `localhost` match it. */
export const pageBase = base.replace("127.0.0.1", "localhost");

/** Calls the operator API; throws on anything but a success envelope. */
export async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await response.json()) as { success: boolean; data: T; error?: unknown };
  if (!envelope.success)
    throw new Error(`admin ${method} ${path} -> ${response.status} ${JSON.stringify(envelope.error)}`);
  return envelope.data;
}

let sequence = 0;

/** A verified account on the free plan (100 credits) with one member and one secret key. */
export async function newAccount(key: { daily_credit_cap?: number } = {}) {
  const email = (label: string) => `${label}-${Date.now()}-${++sequence}@example.com`;
  const account = await admin<{ id: string }>("POST", "/accounts", {
    email: email("e2e"),
    email_verified: true,
    plan: "free",
  });
  const member = await admin<{ user_id: string }>("POST", `/accounts/${account.id}/members`, {
    email: email("member"),
  });
  const secret = await admin<{ key: string }>("POST", `/accounts/${account.id}/keys/secret`, {
    user_id: member.user_id,
    ...key,
  });
  return { accountId: account.id, userId: member.user_id, secretKey: secret.key };
}

/** A publishable key for pages on localhost; `challenge` gives it a bot-challenge pair the fixture siteverify knows. */
export async function newPublishableKey({ challenge = false } = {}) {
  const { accountId } = await newAccount();
  const created = await admin<{ key: string }>("POST", `/accounts/${accountId}/keys/publishable`, {
    allowed_domains: ["localhost"],
    ...(challenge ? { challenge: { site_key: "0x4AAAAAAA-e2e-site", secret: SITEVERIFY_SECRET } } : {}),
  });
  return created.key;
}
