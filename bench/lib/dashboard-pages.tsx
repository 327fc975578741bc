// Sample renderings of the dashboard's pages for bench/dashboard-weight.mjs (bundled by esbuild, run in Node): each
// page with the props a new account would see (two keys, a month of zeros, the six try-it forms, no members but one).
import { BulkPage } from "../../src/surfaces/dashboard/pages/bulk";
import { RunPage } from "../../src/surfaces/dashboard/pages/bulk-run";
import { ExamplesPage } from "../../src/surfaces/dashboard/pages/examples";
import { KeysPage } from "../../src/surfaces/dashboard/pages/keys";
import { STYLES } from "../../src/surfaces/dashboard/pages/layout";
import { MonitorsPage } from "../../src/surfaces/dashboard/pages/monitors";
import { PoliciesPage } from "../../src/surfaces/dashboard/pages/policies";
import { SignInPage, SignUpPage } from "../../src/surfaces/dashboard/pages/sign-in";
import { SuppressionsPage } from "../../src/surfaces/dashboard/pages/suppressions";
import { TryPage } from "../../src/surfaces/dashboard/pages/try-it";
import { UsagePage } from "../../src/surfaces/dashboard/pages/usage";
import type { ApiKey } from "../../src/db/api-keys";
import type { JobView } from "../../src/engines/bulk/jobs";
import type { DashboardSession } from "../../src/surfaces/dashboard/session";

const session: DashboardSession = {
  idHash: "x",
  userId: "usr_1",
  email: "owner@example.com",
  accountId: "acct_1",
  role: "owner",
  csrfToken: "c".repeat(32),
};
// Typed as the table's row (no cast), so a column the page reads is a column the fixture must give.
const key = (id: string, kind: "secret" | "publishable"): ApiKey => ({
  id,
  accountId: "acct_1",
  userId: "usr_1",
  kind,
  keyHash: "h",
  hint: `${kind === "secret" ? "sk" : "pk"}_live_abcd...wxyz`,
  scopes: ["account", "email"],
  allowedIps: [],
  allowedDomains: kind === "publishable" ? ["shop.example"] : [],
  dailyCreditCap: null,
  challengeSiteKey: null,
  challengeSecret: null,
  createdAt: Date.UTC(2026, 10, 1),
  revokedAt: null,
  holderLeftAt: null,
});
const keys = [key("key_1", "secret"), key("key_2", "publishable")];
const products = ["email", "phone", "ip", "address", "entity", "consistency"];
const day = Math.floor(Date.UTC(2026, 10, 26) / 86_400_000) * 86_400_000;
const days = Array.from({ length: 30 }, (_, i) => day - (29 - i) * 86_400_000);
const series = () => Object.fromEntries(products.map((p) => [p, days.map(() => 0)]));
const forms = products.map((product) => ({
  product,
  path: `/${product}`,
  summary: `Look up one ${product} value`,
  example: JSON.stringify({ [product]: "sample" }, null, 2),
}));

const families = ["email", "email-domain", "phone", "ip", "address", "entity"].map((family) => ({
  family,
  listField: `${family}s`,
  listHint: `one ${family} value a line`,
  options: (family === "phone" ? ["network"] : family === "address" ? ["delivery_point"] : []).map((name) => ({
    name,
    toggle: true,
  })),
  keys,
  monitors: [],
}));
const samples = products.map((product) => ({
  product,
  path: `/${product}`,
  samples: ["sample-1", "sample-2", "sample-3"].map((value) => ({ value, answer: "deliverable" })),
}));

export { COPY_SCRIPT as copyScript } from "../../src/surfaces/dashboard/routes/examples";
export { LOCAL_TIME_SCRIPT as localTimeScript } from "../../src/surfaces/dashboard/pages/local-time";
export const styles = STYLES;
export const pages: Record<string, () => unknown> = {
  "sign-in": () => <SignInPage csrf={"c".repeat(32)} />,
  "sign-up": () => <SignUpPage csrf={"c".repeat(32)} />,
  keys: () => <KeysPage session={session} keys={keys} />,
  usage: () => (
    <UsagePage
      session={session}
      usage={{ days, products, requests: series(), answers: series(), credits: series() }}
      ledger={{ rows: [], total: 0, page: 1, perPage: 100 }}
    />
  ),
  try: () => <TryPage session={session} forms={forms} keys={keys} />,
  bulk: () => (
    <BulkPage
      session={session}
      products={products
        .filter((p) => p !== "entity")
        .map((name) => ({ name, field: `${name}s`, objects: name === "consistency" }))}
      keys={keys}
      listing={{ runs: [], total: 0 }}
      page={1}
      uploadToken={"0".repeat(32)}
    />
  ),
  monitors: () => <MonitorsPage session={session} families={families} />,
  policies: () => (
    <PoliciesPage
      session={session}
      sections={["email", "phone", "address"].map((product) => ({ product, policy: null }))}
    />
  ),
  suppressions: () => (
    <SuppressionsPage
      session={session}
      products={["email", "phone", "address"]}
      product="email"
      valueField="email"
      rows={[]}
      page={1}
      total={0}
      perPage={100}
    />
  ),
  examples: () => <ExamplesPage session={session} sections={samples} sandboxKey="sk_test_sandbox" />,
  "bulk-run": () => (
    <RunPage
      session={session}
      product="email"
      job={
        {
          id: 1,
          status: "processing",
          total: 100,
          duplicate_count: 0,
          processed: 40,
          deliverable: 30,
          risky: 5,
          undeliverable: 5,
          credits_used: 40,
          stopped_reason: null,
          cancel_requested: false,
          webhook_status: null,
          webhook_detail: null,
          created_at: "2026-11-26T00:00:00.000Z",
          finished_at: null,
        } as JobView
      }
      number={1}
      suppressedAdded={5}
      counters={["deliverable", "risky", "undeliverable"]}
      hasWebhook={false}
    />
  ),
};
