import type { ProductSurface } from "../surface";
import { adminRegisterRoutes } from "./admin-routes";

export const entitySurface: ProductSurface = {
  subject: "company identifiers",
  // No test identifiers to record an example with: the sample register's company `npm run dev` loads (docs/entity.md).
  tryBody: { identifier: "09900001", type: "company_number", country: "GB" },
  tagDescription:
    "Company identifiers (LEI, national company numbers) against the installed registers. Batches, monitors, " +
    "history.",
  guides: [
    ["entity.md", "Entity", "identifiers and registers"],
    ["entity-monitors.md", "Entity monitors", ""],
  ],
  admin: adminRegisterRoutes,
};
