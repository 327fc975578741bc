import { Hono } from "hono";
import { onError, onNotFound } from "./http/error-handler";
import { lazyApp } from "./http/lazy-app";
import { answerWrongMethods } from "./http/method-not-allowed";
import { recordRequests } from "./http/request-log";
import { requestId } from "./http/request-id";
import { traceAnswer } from "./http/trace-answer";
import { secretKey } from "./auth/secret-key";
import { accountRoutes } from "./surfaces/api/account";
import { restLookupRoutes } from "./surfaces/api/rest-lookups";
import { productEngineRoutes } from "./surfaces/api/products";
import { adminAccountRoutes } from "./surfaces/api/admin/accounts";
import { adminToken } from "./surfaces/api/admin/guard";
import { adminKeyRoutes } from "./surfaces/api/admin/keys";
import { adminDatasetRefreshRoutes } from "./surfaces/api/admin/dataset-refresh";
import { adminMailRoutes } from "./surfaces/api/admin/mail";
import { adminPartnerRoutes } from "./surfaces/api/admin/partners";
import { mailLinkRoutes } from "./surfaces/api/mail-links";
import { mailPreferenceRoutes } from "./surfaces/api/mail-preferences";
import { adminDirectoryRoutes } from "./surfaces/api/admin/directory";
import { adminRoundTripRoutes } from "./surfaces/api/admin/round-trips";
import { openApiRoutes } from "./surfaces/api/openapi";
import { referenceRoutes } from "./surfaces/api/reference";
import { statusRoutes } from "./surfaces/api/status";
import { webhookRoutes } from "./surfaces/api/webhooks";
import { monitoredProduct, productNamed, registeredProducts } from "./products/registry";
import type { AppEnv } from "./types";

/**
 * One app: request id -> request log -> per-route auth, limits and validation -> route. Keys are checked per route
 * (not per prefix) so an unknown path is a 404 and a wrong verb a 405 before any key is asked for.
 */
export const app = new Hono<AppEnv>();

app.use("*", requestId());
app.use("/api/v1/*", recordRequests());
app.use("/mcp", recordRequests());
// Inside the request log, so its write counts as after the answer.
app.use("*", traceAnswer());
app.get("/healthz", (c) => c.text("ok"));
app.route("/", mailLinkRoutes);
app.route("/", mailPreferenceRoutes);
// The dashboard (with payments) and the tool protocol load on their first request, not at every isolate's startup:
// a lookup never needs them (docs/architecture.md, "Cold start").
app.route(
  "/",
  referenceRoutes(async () => (await import("./surfaces/mcp/server")).toolNames({ routes: () => app.routes })),
);
const dashboard = lazyApp(async () => (await import("./surfaces/dashboard/app")).dashboardRoutes());
app.all("/", dashboard);
app.all("/dashboard/*", dashboard);
app.all("/stripe/webhook", dashboard);

app.route(
  "/api/v1",
  openApiRoutes(() => app.routes),
);
app.route("/api/v1", accountRoutes);
app.route("/api/v1", restLookupRoutes());
// Each product's own account routes (IP's lists), from its registry entry.
for (const { name, surface } of registeredProducts())
  if (surface.api) app.route("/api/v1", surface.api(secretKey({ scope: name })));
app.route("/api/v1", productEngineRoutes());
app.route("/api/v1", statusRoutes);
app.route("/api/v1", webhookRoutes({ productNamed, monitoredProduct }));
// After every other route, so `/ip/{ip}` never reads `lists`, `bulk` or `me` as an address.
app.route("/api/v1", restLookupRoutes(true));
// The tool protocol: its tools read their schemas from the routes above and call the same service and engine acts.
app.all(
  "/mcp",
  lazyApp(async () => (await import("./surfaces/mcp/routes")).mcpRoutes(() => app)),
);

app.use("/admin/v1/*", adminToken());
app.route("/admin/v1", adminDirectoryRoutes);
app.route("/admin/v1", adminAccountRoutes);
app.route("/admin/v1", adminKeyRoutes);
// Each product's dataset loading, from its registry entry.
for (const product of registeredProducts()) if (product.surface.admin) app.route("/admin/v1", product.surface.admin);
app.route("/admin/v1", adminRoundTripRoutes);
app.route("/admin/v1", adminDatasetRefreshRoutes);
app.route("/admin/v1", adminMailRoutes);
app.route("/admin/v1", adminPartnerRoutes);

answerWrongMethods(app);
app.onError(onError);
app.notFound(onNotFound);
