import type { SuppressionRow } from "../../../engines/lists/suppressions";
import type { DashboardSession } from "../session";
import { FieldErrors } from "./field-errors";
import type { Added } from "../../../engines/lists/suppressions";
import { Csrf, Layout } from "./layout";

export interface SuppressionsPageProps {
  session: DashboardSession;
  products: string[];
  /** The product shown, its value field (`email`), one page of its list and the list's size. */
  product: string;
  valueField: string;
  rows: SuppressionRow[];
  page: number;
  total: number;
  perPage: number;
  notice?: string;
  added?: Added;
  errors?: Record<string, string[]>;
}

const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

function Entries({ props }: { props: SuppressionsPageProps }) {
  const { product, valueField, rows, page, total, perPage, session } = props;
  const pages = Math.max(1, Math.ceil(total / perPage));
  const at = (p: number) => `/dashboard/suppressions?product=${product}&page=${p}`;
  return (
    <section id="suppression-list">
      <h2>{`${product}: ${total} suppressed`}</h2>
      {rows.length ? (
        <table>
          <thead>
            <tr>
              <th>{valueField}</th>
              <th>Reason</th>
              <th>Source</th>
              <th>Added (UTC)</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr>
                <td>
                  <code>{row.key}</code>
                </td>
                <td>{row.reason}</td>
                <td>{row.source}</td>
                <td>{when(row.createdAt)}</td>
                <td>
                  <form method="post" action={`/dashboard/suppressions/${product}/${row.id}/delete`} class="inline">
                    <Csrf token={session.csrfToken} />
                    <button class="quiet" type="submit">
                      Remove
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">Nothing suppressed on this page.</p>
      )}
      <p class="pager">
        {page > 1 ? <a href={at(page - 1)}>Newer</a> : null}
        <span class="muted">{`page ${page} of ${pages}`}</span> {page < pages ? <a href={at(page + 1)}>Older</a> : null}
      </p>
    </section>
  );
}

/** Suppression lists per product: one page of entries (100, newest first), add values, remove an entry. */
export function SuppressionsPage(props: SuppressionsPageProps) {
  const { session, products, product, notice, added, errors } = props;
  return (
    <Layout title="Suppressions" session={session} path="/dashboard/suppressions">
      <p class="muted">
        Values the account never wants answered: batches, bulk runs and monitor runs answer them free with reason{" "}
        <code>suppressed</code>; a single lookup does not consult the list. Test values are never suppressed.
      </p>
      <nav class="pager">
        {products.map((name) => (
          <a href={`/dashboard/suppressions?product=${name}`} aria-current={name === product ? "page" : undefined}>
            {name}
          </a>
        ))}
      </nav>
      {notice ? <p class="notice">{notice}</p> : null}
      {added ? (
        <p class="notice" id="added">
          {`Added ${added.added}; invalid: ${added.invalid.join(", ") || "none"}; test values (never suppressed): ` +
            `${added.test_values.join(", ") || "none"}.`}
        </p>
      ) : null}
      <FieldErrors errors={errors} />
      <Entries props={props} />
      <section>
        <h2>{`Suppress ${product} values`}</h2>
        <form method="post" action={`/dashboard/suppressions/${product}`}>
          <Csrf token={session.csrfToken} />
          <label for="values">One value per line, or a JSON array for values with parts (at most 1,000)</label>
          <textarea id="values" name="values" rows={6} required></textarea>
          <label for="reason">Reason (optional, up to 64 characters; default: manual)</label>
          <input id="reason" name="reason" type="text" />
          <p>
            <button type="submit">Suppress</button>
          </p>
        </form>
      </section>
    </Layout>
  );
}
