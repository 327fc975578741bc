import { Hono } from "hono";
import { registeredProducts } from "../products/registry";
import type { AppEnv } from "../types";
import { bulkRoutes } from "./bulk";
import { historyRoutes, suppressionRoutes } from "./lists";
import { monitorRoutes } from "./monitors";

/**
 * The engine routes of every registered product, from what each product declares: bulk runs, monitors, the
 * suppression list and history. A new product gets all of them by joining the registry.
 */
export function productEngineRoutes() {
  const routes = new Hono<AppEnv>();
  for (const product of registeredProducts()) {
    if (product.bulk) routes.route("/", bulkRoutes(product));
    if (product.monitor) routes.route("/", monitorRoutes(product));
    if (product.suppressions) routes.route("/", suppressionRoutes(product));
    if (product.history) routes.route("/", historyRoutes(product));
  }
  return routes;
}
