import type { JobView } from "../../../engines/bulk/jobs";
import { isGoing, openActions, type RunAction } from "../../../engines/bulk/run-actions";
import type { DashboardSession } from "../session";
import { Csrf, Layout } from "./layout";

export interface RunPageProps {
  session: DashboardSession;
  product: string;
  job: JobView;
  /** The run's number within the account (#1 for its first run). */
  number: number;
  /** Values the run's answers put on the account's suppression list. */
  suppressedAdded: number;
  /** The product's counters (email: deliverable, risky, undeliverable). */
  counters: readonly string[];
  hasWebhook: boolean;
  /** What the last action said: done, or refused with the API's code. */
  notice?: { text: string; warn?: boolean };
}

interface ActionProps {
  jobId: number;
  action: RunAction;
  label: string;
  csrf: string;
  open: boolean;
}

/** A post of the run's page, rendered in every state, hidden unless the state allows it (the script shows it). */
function Action({ jobId, action, label, csrf, open }: ActionProps) {
  return (
    <form
      class="inline"
      method="post"
      action={`/dashboard/bulk/runs/${jobId}/${action}`}
      data-action={action}
      hidden={!open}
    >
      <Csrf token={csrf} />
      <button id={`run-${action}`} class="quiet" type="submit">
        {label}
      </button>
    </form>
  );
}

/**
 * One run: a progress bar the page script (`/dashboard/assets/bulk.js`) moves by polling `progress`, its counters,
 * cancel, resume, the results and the webhook's redelivery. Every control is rendered, hidden unless the run's state
 * allows it (`data-action`: the script shows and hides them by the same rule as the state changes). The ids are a
 * contract of the e2e test.
 */
/**
 * Why a run stopped early and what to do: out of credits, a Buy link (an owner buys; the run goes on by itself when
 * the credits arrive); a key's daily cap, Resume after midnight UTC. Both rendered, the script shows the one that
 * applies.
 */
function StopNotice({ reason, owner }: { reason: string | null; owner: boolean }) {
  return (
    <>
      <p
        id="run-stop-credits"
        class="notice warn"
        data-stop="insufficient_credits"
        hidden={reason !== "insufficient_credits"}
      >
        {"Stopped: the account ran out of credits. "}
        {owner ? <a href="/dashboard/account#credits">Buy credits</a> : "An owner of the account can buy credits"}
        {"; the run goes on by itself where it stopped as soon as they arrive (or press Resume)."}
      </p>
      <p id="run-stop-cap" class="notice warn" data-stop="key_spend_cap" hidden={reason !== "key_spend_cap"}>
        Stopped: the key that pays for this run reached its daily credit cap. Resume after 00:00 UTC, or raise the key's
        cap on the <a href="/dashboard/keys">keys page</a> and resume.
      </p>
    </>
  );
}

/** What the run put on the account's suppression list, and why: nothing is suppressed without the run saying so. */
function Suppressed({ product, count }: { product: string; count: number }) {
  return (
    <p id="run-suppressed" class="muted" hidden={count === 0}>
      <span id="run-suppressed-count">{String(count)}</span>
      {` of this run's answers put their ${product} value on the account's suppression list (an undeliverable ` +
        "verdict does, by the API's rules): later batch and bulk runs answer them from the list, free. "}
      <a href={`/dashboard/suppressions?product=${product}`}>See or remove them</a>.
    </p>
  );
}

export function RunPage(props: RunPageProps) {
  const { session, product, job, number, suppressedAdded, counters, hasWebhook, notice } = props;
  const going = isGoing(job.status);
  const open = openActions(job);
  const csrf = session.csrfToken;
  const counts = job as unknown as Record<string, unknown>;
  return (
    <Layout title={`Bulk run #${number}`} session={session} path="/dashboard/bulk" script="/dashboard/assets/bulk.js">
      <section
        id="run"
        data-progress-url={`/dashboard/bulk/runs/${job.id}/progress`}
        data-going={going ? "true" : "false"}
        data-stopped={job.stopped_reason ?? ""}
      >
        <p>
          {`${product} · status `}
          <strong id="run-status">{job.status}</strong>
          <span id="run-stopped" class="muted">
            {job.stopped_reason ? ` (stopped: ${job.stopped_reason})` : ""}
          </span>
        </p>
        <progress id="run-progress" value={String(job.processed)} max={String(Math.max(job.total, 1))} />
        <table>
          <tbody>
            <tr>
              <th>Processed</th>
              <td id="run-processed" class="num">{`${job.processed} / ${job.total}`}</td>
            </tr>
            <tr>
              <th>Credits used</th>
              <td id="run-credits" class="num">
                {String(job.credits_used)}
              </td>
            </tr>
            <tr>
              <th>Duplicates</th>
              <td class="num">{String(job.duplicate_count)}</td>
            </tr>
            {counters.map((name) => (
              <tr>
                <th>{name}</th>
                <td class="num" data-counter={name}>
                  {String(counts[name] ?? 0)}
                </td>
              </tr>
            ))}
            <tr>
              <th>Webhook</th>
              <td id="run-webhook">
                {hasWebhook ? `${job.webhook_status ?? "not sent yet"} ${job.webhook_detail ?? ""}` : "none"}
              </td>
            </tr>
          </tbody>
        </table>
        <StopNotice reason={job.stopped_reason} owner={session.role === "owner"} />
        <Suppressed product={product} count={suppressedAdded} />
        {notice ? (
          <p id="run-notice" class={notice.warn ? "notice warn" : "notice"}>
            {notice.text}
          </p>
        ) : null}
        <p data-action="download" hidden={!open.download}>
          <a id="download-results" href={`/dashboard/bulk/runs/${job.id}/results.csv`}>
            Download results (CSV)
          </a>
        </p>
        <p>
          <Action jobId={job.id} action="cancel" label="Cancel the run" csrf={csrf} open={open.cancel} />
          <Action jobId={job.id} action="resume" label="Resume" csrf={csrf} open={open.resume} />
          {hasWebhook ? (
            <Action jobId={job.id} action="redeliver" label="Redeliver the webhook" csrf={csrf} open={open.redeliver} />
          ) : null}
        </p>
        <p class="muted">
          <a href="/dashboard/bulk">All runs</a>
        </p>
      </section>
    </Layout>
  );
}
