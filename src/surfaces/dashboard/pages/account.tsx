import type { DashboardSession } from "../session";
import { PACKS, PAID_PLANS, type Item } from "../billing/items";
import { formatMoney, type PriceInMoney } from "../billing/money";
import { Csrf, Layout } from "./layout";

export interface AccountPageProps {
  session: DashboardSession;
  account: { id: string; email: string; emailVerified: boolean };
  balance: { plan: string; planStatus: string; planCredits: number; packCredits: number; available: number };
  /** Items on sale; null when purchases are off (no Stripe secrets). */
  onSale: Item[] | null;
  /** Each item's price as Stripe holds it; an item Stripe did not price in time shows no amount. */
  prices: Partial<Record<Item, PriceInMoney>>;
  passkeys: { id: string; name: string; createdAt: number }[];
  notice?: string;
  /** On the payment's return page: the account's bulk runs that stopped for credits, or are going again. */
  runs?: RunAfterPayment[];
}

/** A bulk run as the payment's return page shows it. */
export interface RunAfterPayment {
  id: number;
  number: number;
  status: string;
  stoppedReason: string | null;
}

/**
 * The payment's return page: runs that stopped for lack of credits go on by themselves once the payment is confirmed
 * (they show as processing); one that has not yet can be resumed here in one click.
 */
function RunsAfterPayment({ runs, csrf }: { runs: RunAfterPayment[]; csrf: string }) {
  return (
    <section id="runs-after-payment">
      <h2>Bulk runs</h2>
      <ul>
        {runs.map((run) => (
          <li data-run={String(run.id)}>
            <a href={`/dashboard/bulk/runs/${run.id}`}>{`Run #${run.number}`}</a>
            {run.stoppedReason ? (
              <>
                {" stopped for lack of credits. "}
                <form method="post" action={`/dashboard/bulk/runs/${run.id}/resume`} class="inline">
                  <Csrf token={csrf} />
                  <button class="quiet" type="submit">
                    Resume it now
                  </button>
                </form>
              </>
            ) : (
              ` is ${run.status}.`
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function AccountPage(props: AccountPageProps) {
  const { session, account, balance, onSale, prices, passkeys, notice, runs } = props;
  const csrf = session.csrfToken;
  const label = (item: Item) => {
    const name =
      item in PACKS ? PACKS[item as keyof typeof PACKS].label : PAID_PLANS[item as keyof typeof PAID_PLANS].label;
    const price = prices[item];
    return price ? `${name} (${formatMoney(price)})` : name;
  };
  return (
    <Layout
      title="Account and billing"
      session={session}
      path="/dashboard/account"
      script="/dashboard/assets/passkeys.js"
    >
      {notice ? <p class="notice">{notice}</p> : null}
      <section>
        <h2>Account</h2>
        <p>{`${account.email} (${account.id}), you are ${session.role === "owner" ? "an owner" : "a member"}.`}</p>
        {account.emailVerified ? (
          <p>Email address confirmed.</p>
        ) : (
          <form method="post" action="/dashboard/account/confirmation" class="notice warn">
            <Csrf token={csrf} />
            <span>The account's address is not confirmed: its keys answer 403 EMAIL_NOT_VERIFIED. </span>
            <button class="quiet" type="submit">
              Send the confirmation link again
            </button>
          </form>
        )}
      </section>
      {runs?.length ? <RunsAfterPayment runs={runs} csrf={csrf} /> : null}
      <section id="credits">
        <h2>Credits</h2>
        <p id="balance">
          {`Plan ${balance.plan} (${balance.planStatus}): ${balance.planCredits} plan credits, ` +
            `${balance.packCredits} pack credits, ${balance.available} available.`}
        </p>
        {onSale === null ? (
          <p class="notice">Purchases are off on this installation.</p>
        ) : session.role !== "owner" ? (
          <p class="muted">An owner can buy credits.</p>
        ) : (
          onSale.map((item) => (
            <form method="post" action="/dashboard/account/checkout" class="inline">
              <Csrf token={csrf} />
              <input type="hidden" name="item" value={item} />
              <button class="quiet" type="submit">{`Buy ${label(item)}`}</button>{" "}
            </form>
          ))
        )}
      </section>
      <section>
        <h2>Passkeys</h2>
        {passkeys.length ? (
          <ul>
            {passkeys.map((p) => (
              <li>{`${p.name}, added ${new Date(p.createdAt).toISOString().slice(0, 10)}`}</li>
            ))}
          </ul>
        ) : (
          <p class="muted">No passkey yet: sign in by emailed link.</p>
        )}
        <button type="button" id="passkey-register" data-csrf={csrf} hidden>
          Add a passkey
        </button>
      </section>
      <section>
        <h2>Sessions</h2>
        <form method="post" action="/dashboard/sign-out-everywhere">
          <Csrf token={csrf} />
          <button class="quiet" type="submit">
            Sign out everywhere
          </button>
        </form>
      </section>
    </Layout>
  );
}
