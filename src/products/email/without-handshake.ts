import type { ProductContext } from "../../engines/product";
import { emailConfig } from "./config";
import { lookupAddresses, type MailboxProber } from "./lookup";
import type { EmailResult } from "./result";

/** A prober that opens no SMTP session: every address it is asked about comes back unanswered. */
const noHandshake: MailboxProber = async () => ({
  mxHost: null,
  catchAll: null,
  catchAllAnswer: null,
  checkedAt: new Date().toISOString(),
  results: [],
});

/**
 * The email pipeline up to, not including, the mailbox handshake (syntax, test addresses, DNS, the lists, RDAP): how
 * another product reads an address without opening an SMTP session (consistency, through the registry).
 */
export async function lookupWithoutHandshake(ctx: ProductContext, inputs: string[]): Promise<EmailResult[]> {
  if (!inputs.length) return [];
  const answers = await lookupAddresses(
    emailConfig(ctx.env).dns,
    noHandshake,
    inputs.map((input) => ({ input })),
  );
  return answers.map((a) => a.result);
}
