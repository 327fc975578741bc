import type { Notice, NoticeMessage } from "../../../durable-objects/account-object";
import { database } from "../../db/client";
import { escapeHtml } from "./compose";
import { queueMail } from "./outbox";
import { accountRecipients } from "./recipients";

/**
 * The account's money events as mail (docs/mail.md): the account's object records a low balance crossing or a key's
 * cap stopping work and queues a `mail_notice` after its call answered; this turns it into one optional message per
 * member. The dedupe key is the notice's own id, so a notice handed over twice (a retried send) mails once.
 */
export type { NoticeMessage };

const base = (env: Env) => env.MAIL_BASE_URL.replace(/\/+$/, "");

function bodies(
  env: Env,
  notice: Notice,
): { kind: string; subject: string; lines: string[]; link: { label: string; url: string } } {
  if (notice.kind === "low_balance") {
    return {
      kind: "low_balance",
      subject: `Your balance is below ${notice.threshold} credits`,
      lines: [
        `Your Verification API balance is ${notice.balance} credits, below the warning threshold of ` +
          `${notice.threshold} you set.`,
        "Lookups that need credits answer 402 INSUFFICIENT_CREDITS once it reaches 0.",
        "You get this once each time the balance falls below the threshold; change it with PATCH /api/v1/account " +
          "(low_balance_threshold).",
      ],
      link: { label: "Your balance", url: `${base(env)}/api/v1/account` },
    };
  }
  return {
    kind: "key_spend_cap",
    subject: `Key ${notice.keyId} reached its daily credit cap`,
    lines: [
      `The API key ${notice.keyId} has spent its daily cap of ${notice.cap} credits today (${notice.day}, UTC).`,
      "Until the day ends, paid lookups with this key answer 429 KEY_SPEND_CAP_REACHED, and batches and runs it pays " +
        "for stop with stopped_reason key_spend_cap.",
      "You get this at most once per key per day.",
    ],
    link: { label: "The ledger, by key", url: `${base(env)}/api/v1/account/ledger` },
  };
}

export async function mailNotice(env: Env, message: NoticeMessage): Promise<void> {
  const { notice, accountId } = message;
  const { kind, subject, lines, link } = bodies(env, notice);
  const text = [...lines, "", `${link.label}: ${link.url}`, ""].join("\n");
  const html = [
    ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
    `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>`,
  ].join("\n");
  const recipients = await accountRecipients(database(env), accountId);
  await queueMail(
    env,
    recipients.map((to) => ({
      accountId,
      kind,
      to,
      subject,
      text,
      html,
      optional: true,
      dedupeKey: `${kind}:${accountId}:${notice.id}:${to}`,
    })),
  );
}
