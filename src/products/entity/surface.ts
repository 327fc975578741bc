import type { ProductSurface } from "../surface";
import { adminRegisterRoutes } from "./admin-routes";

export const entitySurface: ProductSurface = {
  tagDescription:
    "Company identifiers (LEI, national company numbers) against the installed registers. Batches, monitors, " +
    "history.",
  guides: [
    ["entity.md", "Entity", "identifiers and registers"],
    ["entity-monitors.md", "Entity monitors", ""],
  ],
  admin: adminRegisterRoutes,
};
