import type { ProductSurface } from "../surface";
import examples from "./examples.json";
import { adminAddressDatasetRoutes } from "./admin-routes";

export const addressSurface: ProductSurface = {
  subject: "postal addresses",
  sandbox: { brief: "an address with country `ZZ`", full: "an address with country `ZZ` and line1 `verified`" },
  examples,
  tagDescription:
    "Postal addresses: format, postcode and locality against reference datasets, optional delivery-point check. " +
    "Postcode and street listings, batches, bulk runs, monitors, policy, feedback, suppressions, history.",
  guides: [["address.md", "Address", "fields, coverage, test addresses"]],
  admin: adminAddressDatasetRoutes,
};
