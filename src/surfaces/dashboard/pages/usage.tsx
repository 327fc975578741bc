import type { LedgerRow } from "../../../../durable-objects/account-object";
import type { RequestRecord } from "../../../db/request-log";
import type { DashboardSession } from "../session";
import { UNKNOWN_PRODUCT, type Usage } from "../usage";
import { ledgerLink } from "../ledger-links";
import { Layout } from "./layout";
import { LocalTime } from "./local-time";

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

export interface UsagePageProps {
  session: DashboardSession;
  usage: Usage;
  ledger: { rows: LedgerRow[]; total: number; page: number; perPage: number };
  /**
   * The request asked for by id: its record, `missing` with the id that matched nothing of this account, or `limited`
   * with the rate limit's message (too many lookups by id).
   */
  lookup?: { record: RequestRecord } | { missing: string } | { limited: string };
}

/** Totals of the window per product: the charts' figures, readable without the page script. */
function Totals({ usage }: { usage: Usage }) {
  return (
    <table id="usage-totals">
      <thead>
        <tr>
          <th>Product</th>
          <th class="num">Requests</th>
          <th class="num">Answers</th>
          <th class="num">Credits</th>
        </tr>
      </thead>
      <tbody>
        {usage.products.map((p) => (
          <tr data-product={p}>
            <td>{p}</td>
            <td class="num">{sum(usage.requests[p] ?? [])}</td>
            <td class="num">{sum(usage.answers[p] ?? [])}</td>
            <td class="num">{sum(usage.credits[p] ?? [])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Credits per day (newest first, days with a charge only) and per product: the stacked chart's figures as a table. */
function CreditsByDay({ usage }: { usage: Usage }) {
  const credits = (p: string, i: number) => usage.credits[p]?.[i] ?? 0;
  const dayTotal = (i: number) => sum(usage.products.map((p) => credits(p, i)));
  const charged = usage.days.map((_, i) => i).filter((i) => dayTotal(i) > 0);
  if (!charged.length) return <p class="muted">No credits used in the last 30 days.</p>;
  return (
    <table id="credits-by-day">
      <thead>
        <tr>
          <th>Day (UTC)</th>
          {usage.products.map((p) => (
            <th class="num">{p}</th>
          ))}
          <th class="num">Total</th>
        </tr>
      </thead>
      <tbody>
        {charged.reverse().map((i) => (
          <tr data-day={day(usage.days[i]!)}>
            <td>{day(usage.days[i]!)}</td>
            {usage.products.map((p) => (
              <td class="num">{credits(p, i)}</td>
            ))}
            <td class="num">{dayTotal(i)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr data-day="total">
          <th>30 days</th>
          {usage.products.map((p) => (
            <td class="num">{sum(usage.credits[p] ?? [])}</td>
          ))}
          <td class="num">{sum(usage.products.map((p) => sum(usage.credits[p] ?? [])))}</td>
        </tr>
      </tfoot>
    </table>
  );
}

/** The ledger row's origin, linked to its page (a request, a bulk run, a monitor run, a payment). */
function MadeBy({ row }: { row: LedgerRow }) {
  const link = ledgerLink(row);
  if (!link) return null;
  return (
    <a href={link.href} data-made-by={link.kind}>
      {link.kind === "request" ? <code>{link.label}</code> : link.label}
    </a>
  );
}

function Ledger({ ledger }: { ledger: UsagePageProps["ledger"] }) {
  const pages = Math.max(1, Math.ceil(ledger.total / ledger.perPage));
  return (
    <section>
      <h2>Ledger</h2>
      {ledger.rows.length ? (
        <table id="ledger">
          <thead>
            <tr>
              <th>At</th>
              <th>Kind</th>
              <th>Product</th>
              <th class="num">Plan</th>
              <th class="num">Pack</th>
              <th class="num">Balance</th>
              <th>Made by</th>
              <th>Note</th>
            </tr>
          </thead>
          <tbody>
            {ledger.rows.map((row) => (
              <tr>
                <td>
                  <LocalTime at={row.at} />
                </td>
                <td>{row.kind}</td>
                <td>{row.kind === "charge" || row.kind === "refund" ? (row.product ?? UNKNOWN_PRODUCT) : ""}</td>
                <td class="num">{row.plan_delta}</td>
                <td class="num">{row.pack_delta}</td>
                <td class="num">{row.plan_after + row.pack_after}</td>
                <td>
                  <MadeBy row={row} />
                </td>
                <td>{row.note ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">No credit movements yet.</p>
      )}
      <p class="pager">
        {ledger.page > 1 ? (
          <a rel="prev" href={`/dashboard/usage?page=${ledger.page - 1}#ledger`}>
            Newer
          </a>
        ) : null}
        <span class="muted">{`Page ${ledger.page} of ${pages} (${ledger.total} entries)`}</span>
        {ledger.page < pages ? (
          <a rel="next" href={`/dashboard/usage?page=${ledger.page + 1}#ledger`}>
            {" "}
            Older
          </a>
        ) : null}
      </p>
    </section>
  );
}

function RequestLookup({ lookup }: { lookup: UsagePageProps["lookup"] }) {
  return (
    <section id="request">
      <h2>A request by its id</h2>
      <form method="get" action="/dashboard/usage">
        <label for="request-id">
          Request id (<code>meta.request_id</code> or the <code>X-Request-Id</code> header)
        </label>
        <input id="request-id" name="request" type="text" maxlength={64} required />
        <p>
          <button type="submit">Look up</button>
        </p>
      </form>
      {lookup && "limited" in lookup ? <p class="notice warn">{`${lookup.limited} Try again shortly.`}</p> : null}
      {lookup && "missing" in lookup ? (
        <p class="notice warn">{`No request ${lookup.missing} in this account.`}</p>
      ) : null}
      {lookup && "record" in lookup ? (
        <table id="request-record">
          <tbody>
            <tr>
              <th>Request</th>
              <td>
                <code>{lookup.record.requestId}</code>
              </td>
            </tr>
            <tr>
              <th>Endpoint</th>
              <td>
                <code>{`${lookup.record.method} ${lookup.record.path}`}</code>
              </td>
            </tr>
            <tr>
              <th>Status</th>
              <td>{`${lookup.record.status}${lookup.record.code ? ` ${lookup.record.code}` : ""}`}</td>
            </tr>
            <tr>
              <th>Credits used</th>
              <td>{lookup.record.credits}</td>
            </tr>
            <tr>
              <th>Key</th>
              <td>{lookup.record.keyId ?? ""}</td>
            </tr>
            <tr>
              <th>At</th>
              <td>
                <LocalTime at={lookup.record.createdAt} />
              </td>
            </tr>
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

/**
 * The usage page: three charts (drawn by /dashboard/assets/usage.js with uPlot; credits stacked by product), credits
 * by day and product, totals, the ledger, a request.
 */
export function UsagePage({ session, usage, ledger, lookup }: UsagePageProps) {
  return (
    <Layout
      title="Usage"
      session={session}
      path="/dashboard/usage"
      script="/dashboard/assets/usage.js"
      stylesheet="/dashboard/assets/uplot.css"
    >
      <section>
        <h2>Last 30 days</h2>
        <p class="muted">
          Per UTC day and per product: the credits that left the balance (every charge in the ledger below: lookups,
          batches, bulk runs, monitor runs, partner checks), answered values (lookups, bulk rows, monitor runs) and API
          requests (try-it lookups included). Charges recorded before the ledger named products count as unknown.
        </p>
        <div id="usage-charts" data-usage={JSON.stringify(usage)}>
          <h3>Credits</h3>
          <div class="chart" data-chart="credits" data-stacked="true" />
          <h3>Answers</h3>
          <div class="chart" data-chart="answers" />
          <h3>Requests</h3>
          <div class="chart" data-chart="requests" />
        </div>
        <h3>Credits by day</h3>
        <CreditsByDay usage={usage} />
        <h3>Totals</h3>
        <Totals usage={usage} />
      </section>
      <RequestLookup lookup={lookup} />
      <Ledger ledger={ledger} />
    </Layout>
  );
}
