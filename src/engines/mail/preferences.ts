import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessages, mailPreferences, mailSuppressions } from "../../db/schema";

/**
 * Which optional mail a recipient gets (docs/mail.md). Each optional kind can be turned off on the recipient's
 * preferences page; required mail (account confirmation, sign-in links) is not a kind here and always goes. An
 * address the relay refused for good stays suppressed whatever the page says: mail to it cannot arrive.
 */
export const OPTIONAL_KINDS = {
  monitor_alert: "Monitor alerts (a monitor with alert_emails on found changes)",
  low_balance: "Low balance warnings (the balance fell below the account's threshold)",
  key_spend_cap: "Daily spend cap reached on a key",
  bulk_finished: "Bulk run finished (when the account turned it on)",
} as const;
export type OptionalKind = keyof typeof OPTIONAL_KINDS;
export const isOptionalKind = (kind: string): kind is OptionalKind => Object.hasOwn(OPTIONAL_KINDS, kind);

/**
 * Reason of a suppression made by the one-click unsubscribe (the preferences page may lift it; a bounce it may not).
 */
export const UNSUBSCRIBED = "unsubscribed";

export interface Preferences {
  recipient: string;
  /** Kinds this recipient gets. */
  receives: OptionalKind[];
  /** Every optional kind is off (one-click unsubscribe). */
  unsubscribed: boolean;
  /** The relay refused mail to this address for good: no optional mail goes, whatever is chosen. */
  undeliverable: boolean;
}

/** The recipient an optional message went to: its id is the capability the unsubscribe link carries. */
export async function recipientOfMessage(db: Database, messageId: string): Promise<string | null> {
  const row = await db
    .select({ recipient: mailMessages.recipient, optional: mailMessages.optional })
    .from(mailMessages)
    .where(eq(mailMessages.id, messageId))
    .get();
  return row?.optional ? row.recipient : null;
}

export async function preferencesOf(db: Database, recipient: string): Promise<Preferences> {
  const [suppression, off] = await Promise.all([
    db
      .select({ reason: mailSuppressions.reason })
      .from(mailSuppressions)
      .where(eq(mailSuppressions.recipient, recipient))
      .get(),
    db.select({ kind: mailPreferences.kind }).from(mailPreferences).where(eq(mailPreferences.recipient, recipient)),
  ]);
  const unsubscribed = suppression?.reason === UNSUBSCRIBED;
  const offKinds = new Set(off.map((o) => o.kind));
  const receives = unsubscribed ? [] : (Object.keys(OPTIONAL_KINDS) as OptionalKind[]).filter((k) => !offKinds.has(k));
  return { recipient, receives, unsubscribed, undeliverable: suppression !== undefined && !unsubscribed };
}

/**
 * Saves the page's choice: exactly `receives` are on. Choosing any kind lifts a one-click unsubscribe (the person
 * asked for mail again); a bounce suppression stays.
 */
export async function savePreferences(
  db: Database,
  recipient: string,
  receives: OptionalKind[],
  now = Date.now(),
): Promise<Preferences> {
  const off = (Object.keys(OPTIONAL_KINDS) as OptionalKind[]).filter((k) => !receives.includes(k));
  await db.batch([
    db.delete(mailPreferences).where(eq(mailPreferences.recipient, recipient)),
    ...(off.length
      ? [db.insert(mailPreferences).values(off.map((kind) => ({ recipient, kind, createdAt: now })))]
      : []),
    ...(receives.length
      ? [
          db
            .delete(mailSuppressions)
            .where(and(eq(mailSuppressions.recipient, recipient), eq(mailSuppressions.reason, UNSUBSCRIBED))),
        ]
      : []),
  ]);
  return preferencesOf(db, recipient);
}

/** Why an optional message of `kind` must not go to `recipient`, or null when it may. */
export async function optionalMailBlocked(db: Database, recipient: string, kind: string): Promise<string | null> {
  const [suppression, off] = await Promise.all([
    db
      .select({ reason: mailSuppressions.reason })
      .from(mailSuppressions)
      .where(eq(mailSuppressions.recipient, recipient))
      .get(),
    db
      .select({ kind: mailPreferences.kind })
      .from(mailPreferences)
      .where(and(eq(mailPreferences.recipient, recipient), inArray(mailPreferences.kind, [kind])))
      .get(),
  ]);
  if (suppression) return "recipient suppressed";
  if (off) return `recipient turned ${kind} mail off`;
  return null;
}
