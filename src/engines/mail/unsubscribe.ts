import { eq } from "drizzle-orm";
import { database } from "../../db/client";
import { mailMessages, mailSuppressions } from "../../db/schema";

/**
 * The one-click unsubscribe of an optional message (RFC 8058): the message's id names its recipient, who gets no more
 * optional mail (alerts, warnings); required mail (confirmation links) still goes. Returns the recipient, or null for
 * an id that names no optional message.
 */
export async function unsubscribeByMessage(env: Env, messageId: string): Promise<string | null> {
  const db = database(env);
  const message = await db
    .select({ recipient: mailMessages.recipient, optional: mailMessages.optional })
    .from(mailMessages)
    .where(eq(mailMessages.id, messageId))
    .get();
  if (!message?.optional) return null;
  await db
    .insert(mailSuppressions)
    .values({ recipient: message.recipient, reason: "unsubscribed", createdAt: Date.now() })
    .onConflictDoNothing();
  return message.recipient;
}
