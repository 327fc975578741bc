import { Hono } from "hono";
import { accountById } from "../../../db/accounts";
import { database } from "../../../db/client";
import { userPasskeys } from "../../../db/passkeys";
import { accountObject } from "../../../engines/credits/credits";
import { sendAccountConfirmation } from "../../../engines/mail/account-confirmation";
import { signOutEverywhere } from "../accounts";
import { checkoutUrl } from "../billing/checkout";
import { billing } from "../billing/config";
import { isPack, isPaidPlan, type Item } from "../billing/items";
import { pricesInMoney } from "../billing/prices";
import { ownerOnly, type DashContext, type DashEnv } from "../context";
import { AccountPage } from "../pages/account";
import { PaymentPage } from "../pages/payment";
import { MessagePage } from "../pages/sign-in";
import { ledgerMovements } from "../usage";
import { runsAfterPayment } from "../bulk";
import { endSession } from "../session";

const PURCHASE_NOTICES: Record<string, string> = {
  done: "Thank you. Credits appear here as soon as Stripe confirms the payment.",
  cancelled: "The purchase was cancelled; nothing was charged.",
};

async function render(c: DashContext, notice?: string, status: 200 | 422 | 502 = 200) {
  const { accountId, userId } = c.var.session;
  const db = database(c.env);
  const config = billing(c.env);
  const onSale = config
    ? (Object.keys(config.prices) as Item[]).filter((item) => isPack(item) || isPaidPlan(item))
    : null;
  const returned = c.req.query("purchase") === "done";
  const [account, snapshot, keys, prices, runs] = await Promise.all([
    accountById(db, accountId),
    accountObject(c.env, accountId).snapshot(),
    userPasskeys(db, userId),
    config && onSale && c.var.session.role === "owner" ? pricesInMoney(config, onSale) : {},
    returned ? runsAfterPayment(c.env, accountId) : undefined,
  ]);
  return c.html(
    <AccountPage
      session={c.var.session}
      account={account!}
      balance={{
        plan: snapshot.plan,
        planStatus: snapshot.plan_status,
        planCredits: snapshot.plan_credits,
        packCredits: snapshot.pack_credits,
        available: snapshot.available,
      }}
      onSale={onSale}
      prices={prices}
      passkeys={keys}
      notice={notice ?? PURCHASE_NOTICES[c.req.query("purchase") ?? ""]}
      runs={runs}
    />,
    status,
  );
}

/** The account page (balance, purchases, passkeys), sign out, and sign out everywhere. */
export const accountRoutes = new Hono<DashEnv>()
  .get("/account", (c) => render(c))
  .get("/account/payments/:id", async (c) => {
    const id = c.req.param("id").slice(0, 128);
    const rows = (await ledgerMovements(c.env, c.var.session.accountId, id)).filter(
      (row) => row.kind === "pack_credit" || row.kind === "plan_credit",
    );
    if (!rows.length) return c.html(<MessagePage title="Not found" message="This account has no such payment." />, 404);
    return c.html(<PaymentPage session={c.var.session} id={id} rows={rows} />);
  })
  .post("/account/confirmation", async (c) => {
    const account = await accountById(database(c.env), c.var.session.accountId);
    if (account && !account.emailVerified) await sendAccountConfirmation(c.env, account.id, account.email);
    return render(c, `A confirmation link is on its way to ${account?.email}.`);
  })
  .post("/account/checkout", ownerOnly(), async (c) => {
    const item = String((await c.req.parseBody()).item ?? "");
    if (!isPack(item) && !isPaidPlan(item)) return render(c, "Choose a pack or a plan.", 422);
    const account = await accountById(database(c.env), c.var.session.accountId);
    const url = await checkoutUrl(c.env, account!, item, new URL(c.req.url).origin).catch((error: unknown) => {
      console.error(JSON.stringify({ at: "stripe checkout", error: String(error) }));
      return undefined;
    });
    if (url === undefined)
      return render(c, "Stripe could not be reached; nothing was charged. Try again in a moment.", 502);
    return url ? c.redirect(url, 303) : render(c, "Purchases are off on this installation.", 422);
  })
  .post("/sign-out", async (c) => {
    await endSession(c, c.var.session);
    return c.redirect("/dashboard/sign-in", 303);
  })
  .post("/sign-out-everywhere", async (c) => {
    await signOutEverywhere(c.env, c.var.session.userId);
    await endSession(c, null);
    return c.redirect("/dashboard/sign-in", 303);
  });
