import type { ApiKey } from "../../../db/api-keys";
import type { MonitorView } from "../../../engines/monitors/view";
import { entriesText } from "../monitors";
import { Csrf } from "./layout";

/** One of a family's own options (phone: `network`): a yes/no toggle, or a value typed in (email: `timeout`). */
export interface MonitorOption {
  name: string;
  toggle: boolean;
}

/**
 * What a family's forms need: its name, list field and how to fill it in, its own options and the keys that may
 * pay.
 */
export interface FamilyForms {
  family: string;
  listField: string;
  /** How this family's list is written, with an example of its own values. */
  listHint: string;
  options: MonitorOption[];
  keys: ApiKey[];
}

/**
 * A toggle: checked is `true`. Editing, a hidden `false` comes first, so an unchecked box sends `false` (the form
 * keeps the last value of a name) and the box shows the monitor's current value; creating, unchecked leaves the
 * default.
 */
function Toggle({ id, name, checked, editing }: { id: string; name: string; checked: boolean; editing: boolean }) {
  return (
    <label class="inline" for={id}>
      {editing ? <input type="hidden" name={name} value="false" /> : null}
      <input id={id} type="checkbox" name={name} value="true" checked={checked} /> {name}
    </label>
  );
}

/** The fields create and edit share; on edit every field is optional (left empty: unchanged). */
function CommonFields({ forms, id, current }: { forms: FamilyForms; id: string; current?: MonitorView }) {
  const editing = current !== undefined;
  const value = (name: string) => (current ? String((current as Record<string, unknown>)[name] ?? "") : "");
  return (
    <>
      <label for={`${id}-name`}>Name</label>
      <input id={`${id}-name`} name="name" type="text" value={value("name")} required={!editing} />
      <label for={`${id}-entries`}>{`${forms.listField}: ${forms.listHint}`}</label>
      <textarea id={`${id}-entries`} name="entries" rows={5} required={!editing}>
        {current ? entriesText((current as Record<string, unknown>)[forms.listField] as unknown[]) : ""}
      </textarea>
      <label for={`${id}-cadence`}>Cadence</label>
      <select id={`${id}-cadence`} name="cadence">
        {editing ? <option value="">unchanged</option> : null}
        <option value="weekly">weekly</option>
        <option value="monthly">monthly</option>
      </select>
      <label for={`${id}-webhook`}>Webhook URL (https; empty: {editing ? "unchanged" : "none"})</label>
      <input id={`${id}-webhook`} name="webhook_url" type="text" value={value("webhook_url")} />
      {editing ? (
        <label class="inline">
          <input type="checkbox" name="webhook_remove" /> remove the webhook
        </label>
      ) : null}
      <label for={`${id}-events`}>Webhook events</label>
      <select id={`${id}-events`} name="webhook_events">
        {editing ? <option value="">unchanged</option> : null}
        <option value="changes">changes (runs with a change)</option>
        <option value="every_run">every run</option>
      </select>
      <label for={`${id}-alerts`}>Alert emails to the account's members</label>
      <select id={`${id}-alerts`} name="alert_emails">
        {editing ? <option value="">unchanged</option> : null}
        <option value="off">off</option>
        <option value="on">on</option>
      </select>
      {forms.options.map(({ name, toggle }) =>
        toggle ? (
          <Toggle id={`${id}-${name}`} name={name} checked={value(name) === "true"} editing={editing} />
        ) : (
          <>
            <label for={`${id}-${name}`}>{`${name} (empty: ${editing ? "unchanged" : "default"})`}</label>
            <input id={`${id}-${name}`} name={name} type="text" value={value(name)} />
          </>
        ),
      )}
    </>
  );
}

export function CreateForm({ forms, csrf }: { forms: FamilyForms; csrf: string }) {
  return (
    <form method="post" action={`/dashboard/monitors/${forms.family}`}>
      <h3>{`New ${forms.family} monitor`}</h3>
      <Csrf token={csrf} />
      <label for={`new-${forms.family}-key`}>
        Key that creates it and pays for its runs (a live secret key with this product's scope)
      </label>
      <select id={`new-${forms.family}-key`} name="key_id" required>
        {forms.keys.map((k) => (
          <option value={k.id}>{k.hint}</option>
        ))}
      </select>
      <CommonFields forms={forms} id={`new-${forms.family}`} />
      <p>
        <button type="submit">Create monitor</button>
      </p>
    </form>
  );
}

/** Edit (PATCH: only the fields filled in change), run now and delete, for one monitor. */
export function MonitorActions({ forms, csrf, monitor }: { forms: FamilyForms; csrf: string; monitor: MonitorView }) {
  const base = `/dashboard/monitors/${forms.family}/${monitor.id}`;
  return (
    <>
      <form method="post" action={`${base}/run`} class="run-now">
        <Csrf token={csrf} />
        <button type="submit">Run now</button>{" "}
        <label class="check" title="Look every entry up again, billed as fresh, as the API's refresh does">
          <input type="checkbox" name="refresh" value="on" /> refresh
        </label>
      </form>{" "}
      <form method="post" action={`${base}/delete`} class="inline">
        <Csrf token={csrf} />
        <button class="quiet" type="submit">
          Delete
        </button>
      </form>
      <details>
        <summary>Edit</summary>
        <form method="post" action={base}>
          <Csrf token={csrf} />
          <CommonFields forms={forms} id={`edit-${forms.family}-${monitor.id}`} current={monitor} />
          <p>
            <button type="submit">Save changes</button>
          </p>
        </form>
      </details>
    </>
  );
}
