import type { ProductSurface } from "../surface";
import examples from "./examples.json";

export const consistencySurface: ProductSurface = {
  subject: "cross-checks between them for one sign-up",
  examples,
  tagDescription:
    "Cross-checks of one sign-up's signals (email, phone, IP, address, entity): agreements, a score and a level. " +
    "Batches, bulk runs, monitors, history.",
  guides: [["consistency.md", "Consistency", "checks, score, test values"]],
};
