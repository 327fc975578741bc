import type { paths } from "../../client/src/openapi.gen";
import type { Lookup } from "./lookup";

type Answer =
  paths["/api/v1/address/autocomplete/public"]["post"]["responses"][200]["content"]["application/json"]["data"];
type Suggestion = Answer["suggestions"][number];

/**
 * Address autocomplete (docs/widget.md, "Address autocomplete"): an address line 1 field (`autocomplete=
 * "address-line1"`) offers suggestions as the visitor types, in the ARIA 1.2 combobox pattern (the input is the
 * combobox, a listbox below it, the active option named by `aria-activedescendant`), and a chosen suggestion fills the
 * form's line 1, town, region, postcode and country fields. Without an answer the list stays closed: a plain field.
 */
export const AUTOCOMPLETE = { name: "address/autocomplete", selector: 'input[autocomplete="address-line1"]' };

/** The form fields a chosen suggestion fills, by their `autocomplete` tokens. */
const FILLS: [keyof Suggestion, string][] = [
  ["locality", "address-level2"],
  ["region", "address-level1"],
  ["postcode", "postal-code"],
  ["country", "country"],
];

let listCount = 0;

function setValue(input: HTMLInputElement | HTMLSelectElement, value: string) {
  const proto = input instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value")?.set?.call(input, value);
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
}

const countryOf = (input: HTMLInputElement) => {
  const field = input.form?.querySelector<HTMLInputElement | HTMLSelectElement>('[autocomplete="country"]');
  return (input.dataset.verifyCountry ?? field?.value ?? "").trim().toUpperCase();
};

/** Makes `input` a combobox of address suggestions; `debounce` ms of quiet typing before each request. */
export function attachAutocomplete(input: HTMLInputElement, lookup: Lookup, options: { debounce: number }) {
  const id = `verify-suggestions-${++listCount}`;
  const list = document.createElement("ul");
  list.id = id;
  list.className = "verify-listbox";
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "Address suggestions");
  list.hidden = true;
  const count = document.createElement("div");
  count.className = "verify-count";
  count.setAttribute("role", "status");
  count.setAttribute("aria-live", "polite");
  (input.closest("label") ?? input).insertAdjacentElement("afterend", list);
  list.insertAdjacentElement("afterend", count);
  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-controls", id);

  let suggestions: Suggestion[] = [];
  let active = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: AbortController | null = null;

  const close = () => {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  };
  const highlight = (index: number) => {
    active = index;
    list.querySelectorAll("li").forEach((li, i) => li.setAttribute("aria-selected", String(i === index)));
    if (index >= 0) input.setAttribute("aria-activedescendant", `${id}-${index}`);
    else input.removeAttribute("aria-activedescendant");
  };
  const choose = (s: Suggestion) => {
    // A place chosen while typing line 1 keeps what was typed: it fills the town and postcode only.
    if (s.line1) setValue(input, s.line1);
    for (const [field, token] of FILLS) {
      const target = input.form?.querySelector<HTMLInputElement | HTMLSelectElement>(`[autocomplete="${token}"]`);
      const value = s[field];
      if (target && typeof value === "string") setValue(target, value);
    }
    close();
    count.textContent = `Filled in ${s.text}.`;
    input.dispatchEvent(new CustomEvent("verify:suggestion", { bubbles: true, detail: s }));
  };
  const open = (found: Suggestion[]) => {
    suggestions = found;
    list.replaceChildren(
      ...found.map((s, i) => {
        const li = document.createElement("li");
        li.id = `${id}-${i}`;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.className = "verify-option";
        li.textContent = s.text;
        // mousedown, not click: the input must not lose focus (and close the list) before the choice is made.
        li.addEventListener("mousedown", (event) => {
          event.preventDefault();
          choose(s);
        });
        return li;
      }),
    );
    list.hidden = found.length === 0;
    input.setAttribute("aria-expanded", String(found.length > 0));
    highlight(-1);
    count.textContent = found.length ? `${found.length} suggestions.` : "";
  };

  const ask = async () => {
    const q = input.value.trim();
    const country = countryOf(input);
    current?.abort();
    if (q.length < 3 || !/^[A-Z]{2}$/.test(country)) return close();
    const mine = (current = new AbortController());
    const data = (await lookup(AUTOCOMPLETE.name, { q, country }, mine.signal)) as Answer | null;
    if (current !== mine) return;
    current = null;
    // No answer (unreachable, refused, over the visitor budget): no list, the field stays a plain field.
    if (!data) return close();
    open(data.suggestions);
  };

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void ask(), options.debounce);
  });
  input.addEventListener("keydown", (event) => {
    if (list.hidden) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const n = suggestions.length;
      highlight(event.key === "ArrowDown" ? (active + 1) % n : active <= 0 ? n - 1 : active - 1);
    } else if (event.key === "Enter" && active >= 0) {
      event.preventDefault();
      choose(suggestions[active]!);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close();
    }
  });
  input.addEventListener("blur", close);
}
