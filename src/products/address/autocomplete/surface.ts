import type { ProductSurface } from "../../surface";
import examples from "./examples.json";

export const autocompleteSurface: ProductSurface = {
  tagDescription:
    "Address suggestions as a visitor types, from the installed address datasets' index: a secret-key GET, the " +
    "browser endpoint the widget calls, and the `autocomplete_address` tool.",
  // No `subject`: the intros say what the API verifies, and autocomplete verifies nothing (docs/address.md covers it).
  sandbox: { brief: "an autocomplete query with country `ZZ`" },
  examples,
};
