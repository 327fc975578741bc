// The lab's client of the product's public API: singles, batches and a bulk run, under the key's 5 requests a second.
import { setTimeout as sleep } from "node:timers/promises";
import type { EmailAnswer } from "./report.ts";

export interface Answered {
  address: string;
  answer: EmailAnswer | null;
  credits: number;
  error?: string;
}

interface Envelope<T> {
  success: boolean;
  data: T;
  meta: { credits_used: number };
  error?: { code: string; message: string };
}

type BatchData = { results: { input: string; data: EmailAnswer; meta: { credits_used: number } }[] };
type JobData = { job: { id: string; status: string; processed: number } };

export function apiClient(base: string, key: string) {
  let next = 0;
  /** Requests spaced 250 ms apart, so the key's rate limit (5 a second) never answers for the mail server. */
  const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const wait = next - Date.now();
    next = Math.max(Date.now(), next) + 250;
    if (wait > 0) await sleep(wait);
    const response = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, text: await response.text() };
  };
  const envelope = async <T>(path: string, body?: unknown) => {
    const { status, text } = await call(path, { body });
    const parsed = JSON.parse(text) as Envelope<T>;
    if (!parsed.success) throw new Error(`${path} -> ${status} ${parsed.error?.code}: ${parsed.error?.message}`);
    return parsed;
  };

  return {
    async single(address: string, options: { refresh?: boolean } = {}): Promise<Answered> {
      try {
        const answer = await envelope<EmailAnswer>("/api/v1/email", { email: address, ...options });
        return { address, answer: answer.data, credits: answer.meta.credits_used };
      } catch (error) {
        return { address, answer: null, credits: 0, error: String(error) };
      }
    },
    async batch(addresses: string[]): Promise<Answered[]> {
      try {
        const answer = await envelope<BatchData>("/api/v1/email/batch", { emails: addresses });
        return answer.data.results.map((r) => ({ address: r.input, answer: r.data, credits: r.meta.credits_used }));
      } catch (error) {
        return addresses.map((address) => ({ address, answer: null, credits: 0, error: String(error) }));
      }
    },
    /** A bulk run of `addresses`, polled until it ends; its results CSV read back by column name. */
    async bulk(addresses: string[], timeoutMs = 5 * 60_000): Promise<Answered[]> {
      const created = await envelope<JobData>("/api/v1/email/bulk", { emails: addresses });
      const id = created.data.job.id;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { data } = await envelope<JobData>(`/api/v1/email/bulk/${id}`);
        if (data.job.status === "completed") break;
        if (data.job.status !== "queued" && data.job.status !== "processing")
          throw new Error(`bulk ${data.job.status}`);
        if (Date.now() > deadline) throw new Error(`bulk run not done in ${timeoutMs / 1000} s`);
        await sleep(500);
      }
      const [head = "", ...lines] = (await call(`/api/v1/email/bulk/${id}/results`)).text.trim().split("\n");
      const header = head.split(",");
      return lines.map((line) => {
        const cells = Object.fromEntries(line.split(",").map((cell, i) => [header[i], cell.replace(/^"|"$/g, "")]));
        const nullable = (value: string | undefined) => (value ? value : null);
        const answer: EmailAnswer = {
          deliverable: cells.deliverable ?? "",
          reason: nullable(cells.reason),
          smtp_reason: nullable(cells.smtp_reason),
          // Not a column of the results file: the catch_all column is judged instead.
          mailbox_exists: null,
          catch_all: cells.catch_all === "true" ? true : cells.catch_all === "false" ? false : null,
        };
        return { address: cells.input ?? "", answer, credits: Number(cells.credits_used ?? 0) };
      });
    },
  };
}

/** An account with credits, a member and a secret key, through the operator API. */
export async function labKey(base: string, adminToken: string): Promise<string> {
  const admin = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${base}/admin/v1${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const envelope = (await response.json()) as { success: boolean; data: T };
    if (!envelope.success) throw new Error(`admin ${path} -> ${response.status} ${JSON.stringify(envelope)}`);
    return envelope.data;
  };
  const account = await admin<{ id: string }>("/accounts", { email: "lab@example.com", email_verified: true });
  await admin(`/accounts/${account.id}/credits`, { bucket: "pack", amount: 5_000 });
  const member = await admin<{ user_id: string }>(`/accounts/${account.id}/members`, { email: "lab@example.com" });
  const key = await admin<{ key: string }>(`/accounts/${account.id}/keys/secret`, { user_id: member.user_id });
  return key.key;
}
