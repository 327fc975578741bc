import type { ProductSurface } from "../surface";
import examples from "./examples.json";

export const autocompleteSurface: ProductSurface = {
  tagDescription:
    "Address suggestions as a visitor types, from the installed address datasets' index: a secret-key GET, the " +
    "browser endpoint the widget calls, and the `autocomplete_address` tool.",
  subject: "address suggestions as one types",
  sandbox: { brief: "a query with country `ZZ`" },
  examples,
};
