import type { Child } from "hono/jsx";
import { Page } from "./layout";

/** A page for a browser without a session: the dashboard's look, no navigation. */
export const Anon = ({ title, children }: { title: string; children: Child }) => (
  <Page title={title}>
    <main class="narrow">
      <h1>{title}</h1>
      {children}
    </main>
  </Page>
);

/** The page a signed-out browser asked for, carried by a form so the sign-in link lands there. */
const Next = ({ next }: { next?: string | null }) => (next ? <input type="hidden" name="next" value={next} /> : null);

/** The first page: sign in by emailed link or by passkey, or go to sign-up. `next`: the page to land on. */
export const SignInPage = ({ csrf, notice, next }: { csrf: string; notice?: string; next?: string | null }) => (
  <Anon title="Sign in">
    {notice ? <p class="notice">{notice}</p> : null}
    {next ? (
      <p class="muted" id="sign-in-next">
        {"Sign in to continue to "}
        <code>{next}</code>.
      </p>
    ) : null}
    <section>
      <form method="post" action="/dashboard/sign-in">
        <input type="hidden" name="_csrf" value={csrf} />
        <Next next={next} />
        <label for="email">Email address</label>
        <input id="email" name="email" type="email" required autocomplete="username webauthn" />
        <p>
          <button type="submit">Email me a sign-in link</button>
        </p>
      </form>
      <p>
        <button class="quiet" type="button" id="passkey-sign-in" data-csrf={csrf} data-next={next ?? undefined} hidden>
          Sign in with a passkey
        </button>
      </p>
    </section>
    <p>
      No account yet? <a href="/dashboard/sign-up">Sign up</a>
    </p>
    <script src="/dashboard/assets/passkeys.js" />
  </Anon>
);

export const SignUpPage = ({ csrf }: { csrf: string }) => (
  <Anon title="Create an account">
    <section>
      <form method="post" action="/dashboard/sign-up">
        <input type="hidden" name="_csrf" value={csrf} />
        <label for="email">Email address</label>
        <input id="email" name="email" type="email" required autocomplete="email" />
        <p class="muted">We send a link to confirm the address. Your API keys work once it is confirmed.</p>
        <button type="submit">Create account</button>
      </form>
    </section>
    <p>
      Already have one? <a href="/dashboard/sign-in">Sign in</a>
    </p>
  </Anon>
);

/** The answer to a sign-in or sign-up request, word for word the same whether or not the address is known. */
export const CheckInboxPage = () => (
  <Anon title="Check your inbox">
    <p class="notice">
      If this address can sign in or sign up, a message with a link is on its way. The link works once.
    </p>
    <p>
      <a href="/dashboard/sign-in">Back to sign in</a>
    </p>
  </Anon>
);

/** A sign-in link's button: the POST uses the link, so a mail scanner that fetches links signs nobody in. */
export const FollowLinkForm = ({ csrf, action, next }: { csrf: string; action: string; next?: string | null }) => (
  <form method="post" action={action}>
    <input type="hidden" name="_csrf" value={csrf} />
    <Next next={next} />
    <button type="submit">Continue to the dashboard</button>
  </form>
);

/** A sign-in link opens this page. */
export const FollowLinkPage = (props: { csrf: string; action: string; next?: string | null }) => (
  <Anon title="Sign in">
    <FollowLinkForm {...props} />
  </Anon>
);

export const MessagePage = ({ title, message }: { title: string; message: string }) => (
  <Anon title={title}>
    <p class="notice warn">{message}</p>
    <p>
      <a href="/dashboard/sign-in">Sign in</a>
    </p>
  </Anon>
);
