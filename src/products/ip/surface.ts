import type { ProductSurface } from "../surface";
import examples from "./examples.json";
import { adminIpDatasetRoutes } from "./admin-routes";
import { ipListRoutes } from "./list-routes";

export const ipSurface: ProductSurface = {
  subject: "IP addresses",
  sandbox: { brief: "`192.0.2.1`" },
  examples,
  tagDescription:
    "IP addresses: country and city, network (ASN), hosting, Tor, VPN and proxy lists, the caller's own allow and " +
    "deny lists. ASN and range listings, batches, bulk runs, monitors, feedback, history.",
  guides: [["ip.md", "IP", "fields, datasets, lists, test values"]],
  admin: adminIpDatasetRoutes,
  api: ipListRoutes,
};
