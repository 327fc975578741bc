import type { Confirmation } from "../../../engines/mail/account-confirmation";
import { Anon, FollowLinkForm } from "./sign-in";

type Status = Confirmation["status"];

/** The HTTP status, title and sentence of each outcome of following a confirmation link. */
const OUTCOMES: Record<Status, { status: 200 | 404 | 410; title: string; text: string }> = {
  confirmed: { status: 200, title: "Email address confirmed", text: "Your account's API keys work now." },
  already_confirmed: {
    status: 200,
    title: "Email address already confirmed",
    text: "This link was used before; your account's API keys work.",
  },
  used: { status: 410, title: "Link already used", text: "This confirmation link was used before." },
  expired: { status: 410, title: "Link expired", text: "Confirmation links work for 48 hours." },
  unknown: { status: 404, title: "Unknown link", text: "This link is not valid." },
};

const isConfirmed = (status: Status) => status === "confirmed" || status === "already_confirmed";

/**
 * Where a person goes from here: a confirmed address to the dashboard's keys; a dead link to the dashboard's account
 * page, which sends a new link ("Send the confirmation link again"), by way of sign-in when there is no session.
 */
const Onward = ({ status }: { status: Status }) =>
  isConfirmed(status) ? (
    <p>
      <a href="/dashboard/keys">Go to your API keys</a> or <a href="/dashboard/try">try a lookup</a> in the dashboard.
    </p>
  ) : (
    <p>
      <a href="/dashboard/account">Sign in to the dashboard</a> and choose "Send the confirmation link again" under
      Account and billing for a new link.
    </p>
  );

/** The confirming browser's way in: a one-time sign-in link's form, landing on the keys page. */
export interface ConfirmSignIn {
  action: string;
  csrf: string;
}

/**
 * The page `GET /mail/confirm/{token}` answers, with its HTTP status: the dashboard's look and a link onward; when it
 * confirmed the address in a browser without a session, a button that signs that browser in (one click, no mail).
 */
export function confirmationPage(status: Status, signIn: ConfirmSignIn | null = null) {
  const outcome = OUTCOMES[status];
  const page = (
    <Anon title={outcome.title}>
      <p class={isConfirmed(status) ? "notice" : "notice warn"}>{outcome.text}</p>
      {signIn ? <FollowLinkForm csrf={signIn.csrf} action={signIn.action} next="/dashboard/keys" /> : null}
      <Onward status={status} />
    </Anon>
  );
  return { status: outcome.status, page };
}
