import type { ProductSurface } from "../surface";
import examples from "./examples.json";
import { adminPhoneDatasetRoutes } from "./admin-routes";
import { BUNDLED_PHONE_DATASETS } from "./datasets";

export const phoneSurface: ProductSurface = {
  subject: "phone numbers",
  sandbox: { brief: "`+447700900000`" },
  examples,
  tagDescription:
    "Phone numbers: numbering plan, line type, carrier, optional live network check. Batches, bulk runs, monitors, " +
    "policy, feedback, suppressions, history.",
  guides: [
    ["phone.md", "Phone", "fields, test numbers, network check"],
    ["phone-feedback.md", "Phone feedback", ""],
  ],
  admin: adminPhoneDatasetRoutes,
  bundled: BUNDLED_PHONE_DATASETS,
};
