import type { Lookup } from "./lookup";
import type { View, WidgetProduct } from "./products";
import { sampleAware } from "./sample-aware";

export interface FieldOptions {
  /** Milliseconds of quiet typing before a lookup. */
  debounce: number;
}

/** What `verify:result` carries: the field's state and the full answer (null when none could be had). */
export interface ResultDetail {
  product: string;
  state: string;
  data: unknown;
}

let fieldCount = 0;

/** Sets a value the way typing does, so frameworks that own the input (React and the like) see the change. */
function setValue(input: HTMLInputElement, value: string) {
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(input, value);
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
}

/**
 * Watches one input: looks its value up after `debounce` ms of quiet or when it loses focus, and shows the answer in a
 * polite live region right after it (linked by aria-describedby). Never touches the form's submission.
 */
export function attachField(input: HTMLInputElement, product: WidgetProduct, lookup: Lookup, options: FieldOptions) {
  const status = document.createElement("div");
  status.id = `verify-status-${++fieldCount}`;
  status.className = "verify-status";
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  // After the label when the input sits inside one: text inside a label would become part of the field's name.
  (input.closest("label") ?? input).insertAdjacentElement("afterend", status);
  input.setAttribute("aria-describedby", `${input.getAttribute("aria-describedby") ?? ""} ${status.id}`.trim());

  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: AbortController | null = null;
  let checked = "";

  const show = (state: string, view: View | null, data: unknown) => {
    input.dataset.verifyState = state;
    if (view?.invalid) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    status.className = `verify-status${view?.tone ? ` verify-${view.tone}` : ""}`;
    status.replaceChildren(view?.text ?? "");
    if (view?.suggestion) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "verify-suggestion";
      button.textContent = view.suggestion;
      button.addEventListener("click", () => {
        setValue(input, view.suggestion!);
        input.focus();
        void check();
      });
      status.append(" ", button, "?");
    }
    const detail: ResultDetail = { product: product.name, state, data };
    input.dispatchEvent(new CustomEvent("verify:result", { bubbles: true, detail }));
  };

  const check = async () => {
    clearTimeout(timer);
    const fields = product.request(input);
    const key = JSON.stringify(fields);
    if (key === checked) return;
    checked = key;
    current?.abort();
    if (!fields) return show("idle", null, null);
    const mine = (current = new AbortController());
    input.dataset.verifyState = "checking";
    const data = await lookup(product.name, fields, mine.signal);
    if (current !== mine) return; // the value changed while this one was asked
    current = null;
    if (data === null) {
      checked = ""; // ask again on the next edit or blur: the API may be back
      return show("unavailable", null, null);
    }
    const view = sampleAware(product.view(data), data);
    show(view.state, view, data);
  };

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(check, options.debounce);
  });
  input.addEventListener("blur", () => void check());
}
