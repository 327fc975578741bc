import { and, lt, ne } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessages } from "../../db/schema";

/** Sent and failed messages are listed to the operator for 30 days, then go; suppressions stay. */
export const MAIL_RETENTION_DAYS = 30;

export const sweepMail = (db: Database, now: number) =>
  db.delete(mailMessages).where(and(lt(mailMessages.updatedAt, now - MAIL_RETENTION_DAYS * 86_400_000), ne(mailMessages.status, "pending")));
