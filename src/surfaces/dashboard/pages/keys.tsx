import { SCOPES } from "../../../auth/scopes";
import type { ApiKey } from "../../../db/api-keys";
import { revokedByPerson } from "../../../db/keys";
import type { DashboardSession } from "../session";
import { FieldErrors } from "./field-errors";
import { Csrf, Layout } from "./layout";

const when = (ms: number | null) => (ms === null ? "" : new Date(ms).toISOString().slice(0, 16).replace("T", " "));

export interface KeysPageProps {
  session: DashboardSession;
  keys: ApiKey[];
  /** A key just created or rotated: shown on this answer only. */
  shown?: { label: string; key: string };
  errors?: Record<string, string[]>;
  notice?: string;
}

function KeyRow({ row, csrf }: { row: ApiKey; csrf: string }) {
  const rules =
    row.kind === "secret"
      ? [
          `scopes: ${row.scopes.join(", ")}`,
          row.allowedIps.length ? `sources: ${row.allowedIps.join(", ")}` : "any source",
        ]
      : [`domains: ${row.allowedDomains.join(", ")}`, row.challengeSiteKey ? "bot challenge" : ""];
  return (
    <tr>
      <td>
        <code>{row.hint}</code>
      </td>
      <td>{row.kind}</td>
      <td>
        {rules.filter(Boolean).join("; ")}
        {row.dailyCreditCap ? `; cap ${row.dailyCreditCap}/day` : ""}
      </td>
      <td>{when(row.createdAt)}</td>
      <td>
        {revokedByPerson(row) !== null ? (
          `revoked ${when(row.revokedAt)}`
        ) : row.holderLeftAt !== null ? (
          // Not revoked by anyone: its holder was removed, so it answers KEY_ACCOUNT_MISMATCH for good.
          `holder left the account ${when(row.holderLeftAt)}`
        ) : (
          <form method="post" action={`/dashboard/keys/${row.id}/revoke`} class="inline">
            <Csrf token={csrf} />
            <button class="quiet" type="submit">
              Revoke
            </button>
          </form>
        )}
      </td>
    </tr>
  );
}

export function KeysPage({ session, keys, shown, errors, notice }: KeysPageProps) {
  const csrf = session.csrfToken;
  return (
    <Layout title="API keys" session={session} path="/dashboard/keys">
      {shown ? (
        <section>
          <p>{`${shown.label}: copy it now, it is not shown again.`}</p>
          <p class="secret" id="new-key">
            {shown.key}
          </p>
        </section>
      ) : null}
      {notice ? <p class="notice">{notice}</p> : null}
      <FieldErrors errors={errors} />
      <section>
        <h2>Keys</h2>
        {keys.length ? (
          <table>
            <thead>
              <tr>
                <th>Key</th>
                <th>Type</th>
                <th>Rules</th>
                <th>Created (UTC)</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {keys.map((row) => (
                <KeyRow row={row} csrf={csrf} />
              ))}
            </tbody>
          </table>
        ) : (
          <p class="muted">No keys yet.</p>
        )}
      </section>
      <section>
        <h2>New secret key</h2>
        <form method="post" action="/dashboard/keys/secret">
          <Csrf token={csrf} />
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label class="inline">
                <input type="checkbox" name="scopes" value={scope} checked /> {scope}{" "}
              </label>
            ))}
          </fieldset>
          <label for="allowed_ips">Source allowlist (addresses or CIDR ranges, one per line; empty: any)</label>
          <input id="allowed_ips" name="allowed_ips" type="text" />
          <label for="secret_cap">Daily credit cap (empty: none)</label>
          <input id="secret_cap" name="daily_credit_cap" type="number" min="1" />
          <p>
            <button type="submit">Create secret key</button>
          </p>
        </form>
      </section>
      <section>
        <h2>New publishable key</h2>
        <form method="post" action="/dashboard/keys/publishable">
          <Csrf token={csrf} />
          <label for="allowed_domains">
            Allowed domains (comma separated; <code>*.</code> for subdomains)
          </label>
          <input id="allowed_domains" name="allowed_domains" type="text" required />
          <label for="publishable_cap">Daily credit cap (empty: none)</label>
          <input id="publishable_cap" name="daily_credit_cap" type="number" min="1" />
          <label for="challenge_site_key">Bot challenge site key (optional)</label>
          <input id="challenge_site_key" name="challenge_site_key" type="text" />
          <label for="challenge_secret">Bot challenge secret</label>
          <input id="challenge_secret" name="challenge_secret" type="text" />
          <p>
            <button type="submit">Create publishable key</button>
          </p>
        </form>
      </section>
      <section>
        <h2>Feedback key</h2>
        <p class="muted">
          The <code>fb_</code> key in your senders' webhook URLs. Rotating it stops the previous one at once.
        </p>
        <form method="post" action="/dashboard/keys/feedback/rotate">
          <Csrf token={csrf} />
          <button type="submit">Rotate the feedback key</button>
        </form>
      </section>
    </Layout>
  );
}
