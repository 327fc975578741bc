import type { ProductSurface } from "../surface";
import { adminAddressDatasetRoutes } from "./admin-routes";

export const addressSurface: ProductSurface = {
  tagDescription:
    "Postal addresses: format, postcode and locality against reference datasets, optional delivery-point check. " +
    "Postcode and street listings, batches, bulk runs, monitors, policy, feedback, suppressions, history.",
  guides: [["address.md", "Address", "fields, coverage, test addresses"]],
  admin: adminAddressDatasetRoutes,
};
