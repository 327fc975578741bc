import { attemptMail, type MailQueueMessage } from "../src/engines/mail/outbox";

/** Queue consumer of the mail outbox: one attempt per message through the configured transport (src/engines/mail). */
export const sendQueuedMail = (env: Env, body: MailQueueMessage) => attemptMail(env, body.messageId, body.attempt);
