/**
 * The sign-up form widget, served at /widget/v1/verify.js:
 *
 *   <script src="https://api.example.com/widget/v1/verify.js" data-key="pk_live_..." defer></script>
 *
 * Attaches to every field a product covers (PRODUCTS), now and when added later. docs/widget.md lists the options.
 */
import { AUTOCOMPLETE, attachAutocomplete } from "./autocomplete";
import { attachField } from "./field";
import { createLookup } from "./lookup";
import { PRODUCTS, type WidgetProduct } from "./products";
import { STYLES } from "./styles";

const script = document.currentScript as HTMLScriptElement | null;
const option = (name: string) => script?.dataset[name] ?? "";

/** A global function named by `data-challenge` hands out bot-challenge tokens (docs/widget.md: Turnstile). */
function challengeProvider(): (() => string | Promise<string>) | null {
  const name = option("challenge");
  if (!name) return null;
  return () => {
    const provider = (window as unknown as Record<string, unknown>)[name];
    if (typeof provider !== "function") throw new Error(`data-challenge names ${name}, which is not a function`);
    return (provider as () => string | Promise<string>)();
  };
}

const lookup = createLookup({
  api: (option("api") || (script ? new URL(script.src).origin : location.origin)).replace(/\/+$/, ""),
  key: option("key"),
  timeout: Number(option("timeout")) || 15_000,
  challenge: challengeProvider(),
});
const debounce = Number(option("debounce")) || 500;
const attached = new WeakSet<HTMLInputElement>();

/** Starts verifying `input` as `product` (default: the first product whose selector it matches). Idempotent. */
function attach(input: HTMLInputElement, product?: WidgetProduct) {
  const match = product ?? PRODUCTS.find((p) => input.matches(p.selector));
  if (!match || attached.has(input) || input.dataset.verify === "off") return;
  attached.add(input);
  attachField(input, match, lookup, { debounce });
}

/** Makes an address line 1 field offer suggestions (docs/widget.md, "Address autocomplete"). Idempotent. */
function complete(input: HTMLInputElement) {
  if (attached.has(input) || input.dataset.verify === "off") return;
  attached.add(input);
  attachAutocomplete(input, lookup, { debounce: Number(option("autocompleteDebounce")) || 250 });
}

function scan(root: ParentNode) {
  for (const product of PRODUCTS) {
    root.querySelectorAll<HTMLInputElement>(product.selector).forEach((input) => attach(input, product));
  }
  root.querySelectorAll<HTMLInputElement>(AUTOCOMPLETE.selector).forEach(complete);
}

function start() {
  const style = document.createElement("style");
  style.textContent = STYLES;
  document.head.prepend(style); // first, so the page's own rules win at equal specificity
  if (option("auto") === "false") return;
  scan(document);
  new MutationObserver((changes) => {
    for (const change of changes) {
      change.addedNodes.forEach((node) => {
        if (node instanceof HTMLInputElement && node.matches(AUTOCOMPLETE.selector)) complete(node);
        else if (node instanceof HTMLInputElement) attach(node);
        else if (node instanceof Element) scan(node);
      });
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
}

if (!option("key").startsWith("pk_"))
  console.warn("[verify] data-key must be a publishable key (pk_...); the widget is off.");
else {
  (window as unknown as { VerifyWidget: unknown }).VerifyWidget = { attach, products: PRODUCTS.map((p) => p.name) };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
}
