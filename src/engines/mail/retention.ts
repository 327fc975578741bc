import { and, lt, ne } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailLinks, mailMessages } from "../../db/schema";

/** Sent and failed messages are listed to the operator for 30 days, then go; suppressions stay. */
export const MAIL_RETENTION_DAYS = 30;
const WINDOW_MS = MAIL_RETENTION_DAYS * 86_400_000;

/** Daily sweep: settled messages older than the window, and links expired for as long (used or not). */
export const sweepMail = (db: Database, now: number) =>
  db.delete(mailMessages).where(and(lt(mailMessages.updatedAt, now - WINDOW_MS), ne(mailMessages.status, "pending")));

export const sweepMailLinks = (db: Database, now: number) =>
  db.delete(mailLinks).where(lt(mailLinks.expiresAt, now - WINDOW_MS));
