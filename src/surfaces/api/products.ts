import { Hono } from "hono";
import { registeredProducts } from "../../products/registry";
import type { AppEnv } from "../../types";
import { bulkRoutes } from "./bulk";
import { feedbackRoutes } from "./feedback";
import { historyRoutes, suppressionRoutes } from "./lists";
import { monitorRoutes } from "./monitors";
import { policyRoutes } from "./policy";

/**
 * The engine routes of every registered product, from what each product declares: bulk runs, monitors (its own and
 * its companions', e.g. email's domain monitors), the suppression list, history, sending policy and delivery feedback.
 * A new product gets all of them by joining the registry.
 */
export function productEngineRoutes() {
  const routes = new Hono<AppEnv>();
  for (const product of registeredProducts()) {
    if (product.bulk) routes.route("/", bulkRoutes(product));
    for (const monitored of [product, ...(product.companions ?? [])])
      if (monitored.monitor) routes.route("/", monitorRoutes(monitored));
    if (product.suppressions) routes.route("/", suppressionRoutes(product));
    if (product.history) routes.route("/", historyRoutes(product));
    if (product.policy) routes.route("/", policyRoutes(product));
    if (product.feedback) routes.route("/", feedbackRoutes(product));
  }
  return routes;
}
