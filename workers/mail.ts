import { mailNotice, type NoticeMessage } from "../src/engines/mail/notices";
import { attemptMail, type MailQueueMessage } from "../src/engines/mail/outbox";
import { runSelfServiceMail, type SelfServiceMessage } from "../src/engines/mail/self-service";

/** Queue consumer of the mail outbox: one attempt per message through the configured transport (src/engines/mail). */
export const sendQueuedMail = (env: Env, body: MailQueueMessage) => attemptMail(env, body.messageId, body.attempt);

/** A money event the account's object recorded (low balance, a key's daily cap): mailed to the members. */
export const mailAccountNotice = (env: Env, body: NoticeMessage) => mailNotice(env, body);

/** A signed-out person's sign-in or sign-up form: whether the address is known is found out here, after the answer. */
export const sendSelfServiceMail = (env: Env, body: SelfServiceMessage) => runSelfServiceMail(env, body);
