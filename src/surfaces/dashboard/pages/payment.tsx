import type { LedgerRow } from "../../../../durable-objects/account-object";
import type { DashboardSession } from "../session";
import { Layout } from "./layout";
import { LocalTime } from "./local-time";

/** Credits a row moved, signed, both buckets together. */
const delta = (row: LedgerRow) => row.plan_delta + row.pack_delta;
const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/**
 * A payment (or an operator's grant) as the ledger recorded it: each movement under its id, a purchase and any refund
 * of it, with the balance after each. The usage page's ledger links a credit row here.
 */
export function PaymentPage({ session, id, rows }: { session: DashboardSession; id: string; rows: LedgerRow[] }) {
  const paid = id.startsWith("stripe:");
  const total = rows.reduce((sum, row) => sum + delta(row), 0);
  return (
    <Layout title={paid ? "Payment" : "Credit grant"} session={session} path="/dashboard/account">
      <section id="payment">
        <p>
          {paid ? "Paid through Stripe" : "Granted by the operator"}
          {`: ${signed(total)} credits in all. `}
          <span class="muted">
            <code>{id}</code>
          </span>
        </p>
        <table id="payment-movements">
          <thead>
            <tr>
              <th>At</th>
              <th>Kind</th>
              <th class="num">Credits</th>
              <th class="num">Balance after</th>
              <th>Note</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr>
                <td>
                  <LocalTime at={row.at} />
                </td>
                <td>{delta(row) < 0 ? "refund" : row.kind}</td>
                <td class="num">{signed(delta(row))}</td>
                <td class="num">{row.plan_after + row.pack_after}</td>
                <td>{row.note ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="muted">
          <a href="/dashboard/usage#ledger">The ledger</a> · <a href="/dashboard/account">Account and billing</a>
        </p>
      </section>
    </Layout>
  );
}
