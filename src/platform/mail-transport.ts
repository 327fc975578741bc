import { postToSidecar, type SidecarTarget } from "./sidecar-request";
import { sidecarTarget } from "./smtp-sidecar-client";

/**
 * The two ways a finished MIME message leaves: Cloudflare Email Service (the `send_email` binding EMAIL) or SMTP
 * submission to the operator's relay through the SMTP sidecar (`POST /v1/submit`, workers/smtp-sidecar/submit.mjs),
 * chosen by MAIL_TRANSPORT ("cloudflare" or "smtp"). Either way the same bytes go out, so a message looks the same.
 */
export interface Envelope {
  from: string;
  to: string;
  /** The whole RFC 5322 message. */
  raw: string;
}

/**
 * Sent; or not, and then either for good (`permanent`: the recipient was refused, or with `messageRefused` the message
 * itself, which says nothing about the recipient) or worth another attempt.
 */
export type SendOutcome =
  | { sent: true; detail: string }
  | { sent: false; permanent: boolean; detail: string; messageRefused?: true };

export interface MailTransport {
  readonly name: "cloudflare" | "smtp";
  send(envelope: Envelope): Promise<SendOutcome>;
}

const SUBMIT_TIMEOUT_MS = 20_000;

/** The configured transport, or null when MAIL_TRANSPORT names none (or names one whose binding is missing). */
export function mailTransport(env: Env): MailTransport | null {
  if (env.MAIL_TRANSPORT === "cloudflare" && env.EMAIL) return cloudflareTransport(env.EMAIL);
  if (env.MAIL_TRANSPORT === "smtp") {
    const target = sidecarTarget(env);
    if (target) return smtpRelayTransport(target, env.SMTP_SIDECAR_SECRET);
  }
  return null;
}

/**
 * Errors of the binding that name the recipient as the problem (refused, suppressed, invalid): retrying cannot help.
 */
const PERMANENT_BINDING_ERROR = /recipient|suppress|invalid.*address|not allowed/i;

function cloudflareTransport(binding: SendEmail): MailTransport {
  return {
    name: "cloudflare",
    async send({ from, to, raw }) {
      try {
        // Imported here so code that never sends mail (and tests without the binding) never loads the module.
        const { EmailMessage } = await import("cloudflare:email");
        await binding.send(new EmailMessage(from, to, raw));
        return { sent: true, detail: "accepted by Cloudflare Email Service" };
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        return { sent: false, permanent: PERMANENT_BINDING_ERROR.test(detail), detail };
      }
    },
  };
}

type SubmitAnswer = { sent: true; response: string } | { sent: false; permanent: boolean; detail: string };

const isSubmitAnswer = (v: unknown): v is SubmitAnswer =>
  typeof v === "object" &&
  v !== null &&
  ((v as { sent?: unknown }).sent === true
    ? typeof (v as { response?: unknown }).response === "string"
    : (v as { sent?: unknown }).sent === false &&
      typeof (v as { permanent?: unknown }).permanent === "boolean" &&
      typeof (v as { detail?: unknown }).detail === "string");

const refusal = (answer: unknown) => {
  const said = (answer as { error?: unknown } | null)?.error;
  return typeof said === "string" ? said.slice(0, 200) : "no reason given";
};

function smtpRelayTransport(target: SidecarTarget, secret: string): MailTransport {
  return {
    name: "smtp",
    async send({ from, to, raw }) {
      const body = { from, to, raw, timeout_ms: SUBMIT_TIMEOUT_MS };
      const reply = await postToSidecar({ target, secret, path: "/v1/submit", body, timeoutMs: SUBMIT_TIMEOUT_MS });
      if ("unreachable" in reply)
        return { sent: false, permanent: false, detail: `mail relay unreachable (${reply.unreachable})` };
      return submitOutcome(reply.status, reply.answer);
    },
  };
}

function submitOutcome(status: number, answer: unknown): SendOutcome {
  // A message the relay turns down (too large, malformed) is turned down again on every attempt.
  if (status === 400 || status === 413)
    return {
      sent: false,
      permanent: true,
      messageRefused: true,
      detail: `mail relay refused the message (${refusal(answer)})`,
    };
  if (status < 200 || status >= 300 || !isSubmitAnswer(answer))
    return { sent: false, permanent: false, detail: `mail relay answered ${status}` };
  return answer.sent ? { sent: true, detail: answer.response } : answer;
}
