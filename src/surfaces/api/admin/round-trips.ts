import { Hono } from "hono";
import { ok } from "../../../http/envelope";
import { resetRoundTrips, roundTrips, untraced } from "../../../platform/trace";
import type { AppEnv } from "../../../types";

/**
 * The Worker's own storage round trips and timings per route, for this isolate only (docs/operations.md). Reading or
 * resetting them is left out of them.
 */
export const adminRoundTripRoutes = new Hono<AppEnv>()
  .get("/round-trips", (c) => {
    untraced();
    return ok(c, roundTrips());
  })
  .on("DELETE", "/round-trips", (c) => {
    untraced();
    resetRoundTrips();
    return ok(c, { since: roundTrips().since });
  });
