import type { z } from "zod";
import type { PolicyShape } from "./policy";

/** Whether a rule says anything: a value that is not null, an empty list or an object of such. */
const saysSomething = (value: unknown): boolean =>
  value !== undefined &&
  value !== null &&
  (Array.isArray(value)
    ? value.length > 0
    : typeof value === "object"
      ? Object.values(value).some(saysSomething)
      : true);

/**
 * The rules a product's policy may be set to, for every surface that sets one (the API's PUT, the dashboard): the
 * product's rule schema, and at least one rule, since a policy with none would stamp `send` on every answer for nothing
 * (removing is how a policy goes).
 */
export const policyRules = <Out>(shape: PolicyShape<Out>): z.ZodType =>
  shape.rules.refine(saysSomething, "A policy needs at least one rule; DELETE removes the policy.");
