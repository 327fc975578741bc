import type { Context } from "hono";
import type { AppEnv } from "../types";

/** The secret-key principal of a route that only secret keys reach (its middleware already checked the key). */
export function secretPrincipal(c: Context<AppEnv>) {
  const principal = c.var.principal;
  if (principal?.kind !== "secret") throw new Error("this route needs a secret-key principal");
  return principal;
}
