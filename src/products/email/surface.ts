import type { ProductSurface } from "../surface";
import examples from "./examples.json";
import { BUNDLED_SNAPSHOTS } from "./datasets";

export const emailSurface: ProductSurface = {
  subject: "email addresses",
  sandbox: {
    brief: "`deliverable@service.test`",
    full:
      "`deliverable@service.test` (and `undeliverable@`, `role@`, `disposable@`, `catch-all@`, `unverified@` on " +
      "service.test)",
  },
  examples,
  tagDescription:
    "Email addresses: syntax, DNS, disposable/role/free lists, the mailbox handshake, risk. Batches, bulk runs, " +
    "monitors (addresses and domains), sending policy, delivery feedback, suppressions, history.",
  guides: [
    ["test-addresses.md", "Test addresses", "the fixed email answers of service.test"],
    ["email.md", "Email", "fields, reasons, scores"],
    ["email-policy.md", "Email sending policy", ""],
    ["email-feedback.md", "Email delivery feedback", ""],
    ["email-monitors.md", "Email monitors", ""],
  ],
  bundled: BUNDLED_SNAPSHOTS,
};
