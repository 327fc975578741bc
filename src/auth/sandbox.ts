import type { Context } from "hono";
import { database } from "../db/client";
import { getSetting } from "../db/settings";
import { ApiError } from "../http/errors";
import { enforceLimit } from "../limits/limiter";
import { requestSource } from "../limits/source";
import type { AppEnv } from "../types";

/**
 * The published sandbox key: 503 while the operator has the sandbox off, then 30 requests a minute per address (IPv6
 * per /64; every request counts, answered or refused), then only the lookup endpoints that opted in.
 */
export async function admitSandbox(c: Context<AppEnv>, endpointAllowed: boolean): Promise<void> {
  if ((await getSetting(database(c.env), "sandbox_enabled")) !== "true") {
    throw new ApiError("SANDBOX_UNAVAILABLE", "The sandbox is switched off; use a secret key from your account.");
  }
  await enforceLimit(c.env, "sandboxAddress", requestSource(c));
  if (!endpointAllowed) {
    throw new ApiError("SANDBOX_ENDPOINT_NOT_ALLOWED", "The sandbox key only answers the documented sample lookups.");
  }
  c.set("principal", { kind: "sandbox" });
}
