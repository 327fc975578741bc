import type { ProductSurface } from "../surface";

export const consistencySurface: ProductSurface = {
  tagDescription:
    "Cross-checks of one sign-up's signals (email, phone, IP, address, entity): agreements, a score and a level. " +
    "Batches, bulk runs, monitors, history.",
  guides: [["consistency.md", "Consistency", "checks, score, test values"]],
};
