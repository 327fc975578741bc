import { type ApiKey, isLiveKey } from "../../../db/api-keys";
import type { DashboardSession } from "../session";
import type { ApiAnswer } from "../key-request";
import type { TryForm } from "../try-it";
import { Csrf, Layout } from "./layout";

export interface TryPageProps {
  session: DashboardSession;
  forms: TryForm[];
  keys: ApiKey[];
  /** The form just sent: its product, the body as sent, and the API's answer or the form's own errors. */
  sent?: { product: string; body: string; answer?: ApiAnswer; errors?: string[] };
}

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

/**
 * How a source's coverage cell is marked: a `sample` that decided a field of the answer as a warning (a synthetic row
 * or a stand-in answered, not a register), a live source asked without an answer (`none`) as muted, and a sample
 * consulted that decided nothing (`decided: false`) not at all (docs/dashboard.md, "Try it").
 */
function coverageCell(s: Json): { tint: string | undefined; text: string } {
  const coverage = String(s.coverage ?? "");
  if (s.decided === false) return { tint: undefined, text: `${coverage} (decided nothing)` };
  if (coverage === "none") return { tint: "muted", text: "none (no answer)" };
  return { tint: coverage === "sample" ? "warn" : undefined, text: coverage };
}

/** The answer as the API gave it: status, the verdict's data, its sources, and the meta with the request's id. */
function Answer({ answer }: { answer: ApiAnswer }) {
  const data = asObject(answer.envelope.data);
  const meta = asObject(answer.envelope.meta);
  const error = asObject(answer.envelope.error);
  const sources = Array.isArray(data?.sources) ? (data.sources as Json[]) : [];
  const requestId =
    typeof meta?.request_id === "string"
      ? meta.request_id
      : typeof error?.request_id === "string"
        ? error.request_id
        : null;
  return (
    <div id="try-answer" data-status={String(answer.status)}>
      <p class={error ? "notice warn" : "notice"}>
        {`HTTP ${answer.status}`}
        {error
          ? ` ${String(error.code)}: ${String(error.message)}`
          : ` · ${String(meta?.credits_used ?? 0)} credit(s) used`}
        {requestId ? (
          <>
            {" "}
            · request{" "}
            <a href={`/dashboard/usage?request=${encodeURIComponent(requestId)}#request`}>
              <code>{requestId}</code>
            </a>
          </>
        ) : null}
      </p>
      {sources.length ? (
        <>
          <h3>Sources</h3>
          <table id="try-sources">
            <thead>
              <tr>
                <th>Dataset</th>
                <th>Version</th>
                <th>Coverage</th>
              </tr>
            </thead>
            <tbody>
              {sources.map((s) => {
                const cell = coverageCell(s);
                return (
                  <tr>
                    <td>{String(s.dataset ?? "")}</td>
                    <td>{String(s.version ?? "")}</td>
                    <td class={cell.tint}>{cell.text}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      ) : null}
      <h3>Answer</h3>
      <pre id="try-envelope">{JSON.stringify(answer.envelope, null, 2)}</pre>
    </div>
  );
}

function ProductForm({
  form,
  keys,
  csrf,
  sent,
}: {
  form: TryForm;
  keys: ApiKey[];
  csrf: string;
  sent: TryPageProps["sent"];
}) {
  const mine = sent?.product === form.product ? sent : undefined;
  return (
    <section id={`try-${form.product}`}>
      <h2>{form.product}</h2>
      <p class="muted">{`POST /api/v1${form.path}: ${form.summary}`}</p>
      <form method="post" action={`/dashboard/try/${form.product}#try-${form.product}`}>
        <Csrf token={csrf} />
        <label
          for={`key-${form.product}`}
        >{`Secret key of this account (shown once when created; needs the ${form.product} scope)`}</label>
        <input
          id={`key-${form.product}`}
          name="key"
          type="password"
          autocomplete="off"
          required
          list={`hints-${form.product}`}
        />
        <datalist id={`hints-${form.product}`}>
          {keys.map((k) => (
            <option value="">{k.hint}</option>
          ))}
        </datalist>
        <label for={`body-${form.product}`}>Request body (JSON)</label>
        <textarea id={`body-${form.product}`} name="body" rows={5} cols={60}>
          {mine?.body ?? form.example}
        </textarea>
        <p>
          <button type="submit">{`Run one ${form.product} lookup`}</button>
        </p>
      </form>
      {mine?.errors ? (
        <ul class="notice warn">
          {mine.errors.map((e) => (
            <li>{e}</li>
          ))}
        </ul>
      ) : null}
      {mine?.answer ? <Answer answer={mine.answer} /> : null}
    </section>
  );
}

/** Try it: one form per product, each running one lookup as the API request it stands for, with an account key. */
export function TryPage({ session, forms, keys, sent }: TryPageProps) {
  const live = keys.filter((k) => k.kind === "secret" && isLiveKey(k));
  return (
    <Layout title="Try it" session={session} path="/dashboard/try">
      <p class="muted">
        Each run is a real API request with the key you paste: it is billed, rate-limited and logged like any other, and
        shows on the usage page.
      </p>
      {live.length ? null : (
        <p class="notice warn">
          This account has no live secret key yet: create one on the <a href="/dashboard/keys">keys page</a> first.
        </p>
      )}
      {forms.map((form) => (
        <ProductForm form={form} keys={live} csrf={session.csrfToken} sent={sent} />
      ))}
    </Layout>
  );
}
