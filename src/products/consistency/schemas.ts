import { z } from "zod";
import type { ConsistencyDeps } from "./deps";
import { SIGNAL_NAMES } from "./result";

/** Request schemas of the consistency product (the answer's schema is in result.ts). */

/**
 * Two or more signals: the body of `POST /consistency`, a row of a bulk run. Each value is validated by its product's
 * schema.
 */
export function consistencyInputSchema(deps: Pick<ConsistencyDeps, "phone" | "address" | "entityObject">) {
  return signalsObject(deps, {});
}

/** `network` on `POST /consistency`: the phone signal's live network check (docs/consistency.md, "Live line type"). */
const networkOption = z
  .boolean()
  .default(false)
  .describe(
    "Run the phone signal's live network check through the configured partner: 1 more credit when it " +
      "answers, the whole call free with `reason: partner_unavailable` when none does.",
  );

/** The body of `POST /consistency`: the signals and the `network` option (a bulk row is the signals alone). */
export function consistencyRequestSchema(deps: Pick<ConsistencyDeps, "phone" | "address" | "entityObject">) {
  return signalsObject(deps, { network: networkOption });
}

/**
 * One consistency call's signals as sent: two or more of them, read from the schema below. Phone, address and company
 * values are their products' own inputs (validated with those products' schemas); consistency hands them back unread.
 */
export type ConsistencyInput = z.output<ReturnType<typeof signalsObject<Record<never, never>>>>;

function signalsObject<Extra extends z.ZodRawShape>(
  deps: Pick<ConsistencyDeps, "phone" | "address" | "entityObject">,
  extra: Extra,
) {
  const signalFields = {
    email: z.string().max(254).nullish().describe("An email address (answered without the mailbox handshake)."),
    phone: deps.phone.input.nullish().describe("A phone number: a string with `+`, or `{phone, country}`."),
    ip: z.string().max(100).nullish().describe("An IPv4 or IPv6 address."),
    address: deps.address.input
      .nullish()
      .describe("A postal address object with its `country` (or `{address, country}`)."),
    entity: deps.entityObject
      .nullish()
      .describe("A company identifier: `{identifier, type, country}` (type `lei` or `company_number`)."),
  };
  return z
    .object({ ...signalFields, ...extra })
    .refine((body: Record<string, unknown>) => SIGNAL_NAMES.filter((name) => body[name] != null).length >= 2, {
      message: `Give two or more of ${SIGNAL_NAMES.join(", ")}.`,
    });
}
