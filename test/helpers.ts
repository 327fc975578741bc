import { env, runInDurableObject } from "cloudflare:test";
import { SCOPES } from "../src/auth/scopes";
import { fetchChecked } from "./openapi-check";

export const BASE = "https://api.test";
const ADMIN_TOKEN = "test-admin-token";

export interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  meta: Record<string, unknown>;
  error: { code: string; message: string; request_id: string; errors?: Record<string, string[]> };
}

export async function call<T = Record<string, unknown>>(path: string, init: RequestInit = {}) {
  const response = await fetchChecked(`${BASE}${path}`, init);
  const body = (await response.json()) as Envelope<T>;
  return { response, status: response.status, body };
}

export const json = (body: unknown, headers: Record<string, string> = {}, method = "POST"): RequestInit => ({
  method,
  headers: { "Content-Type": "application/json", ...headers },
  body: JSON.stringify(body),
});

export const bearer = (key: string, headers: Record<string, string> = {}): RequestInit => ({
  headers: { Authorization: `Bearer ${key}`, ...headers },
});

/** Calls the operator API and fails the test on an error envelope. */
export async function admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
  const { status, body: envelope } = await call<T>(`/admin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!envelope.success) throw new Error(`admin ${method} ${path} -> ${status} ${JSON.stringify(envelope.error)}`);
  return envelope.data;
}

let sequence = 0;
const uniqueEmail = (label: string) => `${label}-${Date.now()}-${++sequence}@example.com`;

export interface TestAccount {
  accountId: string;
  userId: string;
  key: string;
  keyId: string;
}

export interface AccountOptions {
  verified?: boolean;
  plan?: "free" | "starter" | "growth" | "enterprise";
  pack?: number;
  key?: { scopes?: string[]; allowed_ips?: string[]; daily_credit_cap?: number | null };
}

/** A fresh account with one member and one secret key; `enterprise` starts at 0 credits (no monthly grant). */
export async function createAccount(options: AccountOptions = {}): Promise<TestAccount> {
  const account = await admin<{ id: string }>("POST", "/accounts", {
    email: uniqueEmail("acct"),
    email_verified: options.verified ?? true,
    plan: options.plan ?? "enterprise",
  });
  if (options.pack) await admin("POST", `/accounts/${account.id}/credits`, { bucket: "pack", amount: options.pack });
  const member = await admin<{ user_id: string }>("POST", `/accounts/${account.id}/members`, {
    email: uniqueEmail("user"),
  });
  const key = await admin<{ id: string; key: string }>("POST", `/accounts/${account.id}/keys/secret`, {
    user_id: member.user_id,
    scopes: options.key?.scopes ?? [...SCOPES],
    allowed_ips: options.key?.allowed_ips ?? [],
    daily_credit_cap: options.key?.daily_credit_cap ?? null,
  });
  return { accountId: account.id, userId: member.user_id, key: key.key, keyId: key.id };
}

export const accountObject = (accountId: string) => env.ACCOUNTS.get(env.ACCOUNTS.idFromName(accountId));

export interface MailStats {
  dataCalls: number;
  /** Every address and port the sidecar dialled (SMTP and webhook attempts); off-loopback dials fail in the fixture. */
  dials: { host: string; port: number }[];
  /** Each connection: its recipient domains and RCPTs, the refusals it got, and the address it was made to. */
  sessions: { domains: string[]; rcpts: string[]; errors: number; ip: string }[];
  /** Per recipient domain, the most SMTP sessions that were open at once with a RCPT to it. */
  peakSessions: Record<string, number>;
  /** Replies slowed by Postfix's soft error limit, and 421s at its hard one (test/fixtures/smtp.ts). */
  slowReplies: number;
  hardLimits: number;
}

/**
 * What the fixture SMTP server has seen so far (sessions and RCPTs), to prove when a handshake did or did not happen.
 */
export async function mailStats(): Promise<MailStats> {
  return (await (await fetch(env.MAIL_STATS_URL)).json()) as MailStats;
}

export const rcptCount = (stats: MailStats, email: string) =>
  stats.sessions.flatMap((s) => s.rcpts).filter((r) => r === email.toLowerCase()).length;

/** POST /api/v1/email with a secret key. */
export const lookupEmail = <T = Record<string, unknown>>(key: string, body: Record<string, unknown>) =>
  call<T>("/api/v1/email", json(body, { Authorization: `Bearer ${key}` }));

/** Another secret key for the same member: tests that make more than 5 calls a second spread them over keys. */
export async function anotherKey(acct: TestAccount): Promise<string> {
  const created = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/secret`, {
    user_id: acct.userId,
  });
  return created.key;
}

export interface RequestRecordView {
  request_id: string;
  endpoint: string;
  status: number;
  code: string | null;
  credits_used: number;
  key_id: string | null;
  created_at: string;
}

/**
 * GET /account/requests/{id}, asked again while it answers 404 (every 50 ms, or 200 ms after a 429 from the key's
 * rate) for at most 10 s: a request's record goes on the JOBS queue just after its response and the queue's consumer
 * writes it (src/http/request-log.ts, workers/request-log.ts), about a second later (the consumer's batch timeout).
 */
export async function requestRecord(key: string, requestId: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call<RequestRecordView>(`/api/v1/account/requests/${requestId}`, bearer(key));
    if ((answer.status !== 404 && answer.status !== 429) || Date.now() >= deadline) return answer;
    // Every poll is a request on the key: 250 ms keeps a poll within the key's burst of 5 a second, so the read that
    // follows the record's arrival is not refused as over the rate limit.
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Waits until D1 stores the request log's row of `requestId` (the API answers a record from its isolate before that,
 * but the usage page's daily counts read D1).
 */
export async function recordStored(requestId: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await env.DB.prepare("SELECT 1 FROM request_log WHERE request_id = ?").bind(requestId).first()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`request ${requestId} was never stored`);
}

/**
 * Rows of the account's lists (repeats, suppressions, history, feedback), read from its object's SQLite: where they
 * live since they left D1. Touching the lists first moves any rows of the old D1 layout in (as any first use does).
 */
export async function accountRows<T = Record<string, unknown>>(
  accountId: string,
  query: string,
  ...binds: (string | number | null)[]
): Promise<T[]> {
  const stub = accountObject(accountId);
  await stub.usage(0);
  return runInDurableObject(stub, (_instance, state) => state.storage.sql.exec(query, ...binds).toArray() as T[]);
}

/**
 * Waits (every 50 ms, at most 10 s) until the shared mailbox answers of these mailboxes are stored with a `checked_at`
 * at or after `since`: a lookup hands them to the JOBS queue after its answer and the queue's consumer stores them
 * about a second later (the consumer's batch timeout), so a test that reuses them from another lookup waits here.
 */
export async function mailboxesShared(emails: string[], since = 0, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { results } = await env.DB.prepare(
      "SELECT email FROM mailbox_answers WHERE email IN (SELECT value FROM json_each(?1)) AND checked_at >= ?2",
    )
      .bind(JSON.stringify(emails), since)
      .all<{ email: string }>();
    if (results.length === new Set(emails).size) return;
    if (Date.now() >= deadline) throw new Error(`shared mailbox answers never stored: ${emails.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
