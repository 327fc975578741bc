import type { ApiKey } from "../../../db/api-keys";
import type { RunListing } from "../bulk";
import type { DashboardSession } from "../session";
import { Csrf, Layout } from "./layout";

export interface BulkPageProps {
  session: DashboardSession;
  products: { name: string; field: string; objects: boolean }[];
  keys: ApiKey[];
  listing: RunListing;
  page: number;
  /** The form's one-time token (a double submit replays the first run: it is the request's Idempotency-Key). */
  uploadToken: string;
  /** The upload just refused: the form's own errors, or the API's status and error. */
  errors?: string[];
  sent?: { product?: string; column?: string; webhookUrl?: string; country?: string };
}

const PER_PAGE = 100;

/** The upload form (its ids and names are a contract of the e2e test) and the account's runs. */
export function BulkPage({ session, products, keys, listing, page, uploadToken, errors, sent }: BulkPageProps) {
  return (
    <Layout title="Bulk runs" session={session} path="/dashboard/bulk">
      <section>
        <h2>Start a run</h2>
        <p class="muted">
          A text file is one value a line; a CSV gives its first column, or the column you name (its first row is then
          the header). A first row naming the column (<code>email</code>, <code>value</code>, ...) is skipped.
          Consistency rows are a CSV whose header names the fields (<code>email,phone,ip</code>). The run is an API
          request with the key you paste: its scopes, cap and source allowlist apply, and each row is billed to it as it
          is answered.
        </p>
        {errors?.length ? (
          <ul id="bulk-errors" class="notice warn">
            {errors.map((e) => (
              <li>{e}</li>
            ))}
          </ul>
        ) : null}
        <form id="bulk-upload" method="post" action="/dashboard/bulk" enctype="multipart/form-data">
          <Csrf token={session.csrfToken} />
          <input type="hidden" name="upload_token" value={uploadToken} />
          <label for="bulk-product">Product</label>
          <select id="bulk-product" name="product">
            {products.map((p) => (
              <option value={p.name} selected={sent?.product === p.name}>
                {p.objects ? `${p.name} (CSV with named fields)` : p.name}
              </option>
            ))}
          </select>
          <label for="bulk-file">File (CSV or text)</label>
          <input id="bulk-file" name="file" type="file" accept=".csv,.txt,text/csv,text/plain" required />
          <label for="bulk-column">Column name (optional; default the first column)</label>
          <input id="bulk-column" name="column" type="text" value={sent?.column ?? ""} maxlength={200} />
          <label for="bulk-country">Country (optional; address only: ISO code for lines that name none)</label>
          <input id="bulk-country" name="country" type="text" value={sent?.country ?? ""} maxlength={2} />
          <label for="bulk-webhook">Webhook URL (optional; https, called when the run finishes)</label>
          <input id="bulk-webhook" name="webhook_url" type="text" value={sent?.webhookUrl ?? ""} maxlength={2048} />
          <label for="bulk-key">Secret key of this account (pays for the run; needs the product's scope)</label>
          <input id="bulk-key" name="key" type="password" autocomplete="off" required list="bulk-key-hints" />
          <datalist id="bulk-key-hints">
            {keys.map((k) => (
              <option value="">{k.hint}</option>
            ))}
          </datalist>
          <p>
            <button type="submit">Start the run</button>
          </p>
        </form>
      </section>
      <section>
        <h2>Runs</h2>
        {listing.runs.length ? (
          <table id="bulk-runs">
            <thead>
              <tr>
                <th>Run</th>
                <th>Product</th>
                <th>Status</th>
                <th class="num">Processed / total</th>
                <th class="num">Credits</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {listing.runs.map((run) => (
                <tr>
                  <td>
                    <a href={`/dashboard/bulk/runs/${run.id}`}>{`#${run.number}`}</a>
                  </td>
                  <td>{run.product}</td>
                  <td>{run.stopped_reason ? `${run.status} (${run.stopped_reason})` : run.status}</td>
                  <td class="num">{`${run.processed} / ${run.total}`}</td>
                  <td class="num">{String(run.credits_used)}</td>
                  <td>{run.created_at}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p class="muted">No runs yet.</p>
        )}
        <p class="pager">
          {page > 1 ? <a href={`/dashboard/bulk?page=${page - 1}`}>Newer</a> : null}
          {page * PER_PAGE < listing.total ? <a href={`/dashboard/bulk?page=${page + 1}`}>Older</a> : null}
        </p>
      </section>
    </Layout>
  );
}
