import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessages } from "../../db/schema";

/** What the operator sees of a message (GET /admin/v1/mail): never the raw MIME, which adds nothing but bulk. */
export interface MailView {
  id: string;
  account_id: string;
  recipient: string;
  subject: string;
  kind: string;
  status: "pending" | "sent" | "failed" | "suppressed";
  detail: string | null;
  attempts: number;
  created_at: string;
  text: string;
}

/** Newest first; `before` (a created_at in ms) pages back. */
export async function listMail(
  db: Database,
  q: { accountId?: string; recipient?: string; kind?: string; limit: number; before?: number },
): Promise<MailView[]> {
  const where: SQL[] = [];
  if (q.accountId) where.push(eq(mailMessages.accountId, q.accountId));
  if (q.recipient) where.push(eq(mailMessages.recipient, q.recipient.toLowerCase()));
  if (q.kind) where.push(eq(mailMessages.kind, q.kind));
  if (q.before !== undefined) where.push(lt(mailMessages.createdAt, q.before));
  const rows = await db
    .select()
    .from(mailMessages)
    .where(and(...where))
    .orderBy(desc(mailMessages.createdAt), desc(mailMessages.id))
    .limit(q.limit);
  return rows.map((r) => ({
    id: r.id,
    account_id: r.accountId,
    recipient: r.recipient,
    subject: r.subject,
    kind: r.kind,
    status: r.status,
    detail: r.detail,
    attempts: r.attempts,
    created_at: new Date(r.createdAt).toISOString(),
    text: r.textBody,
  }));
}
