import { z } from "zod";
import { countryCode } from "./parse";
import { addressFieldsSchema, fieldShape, oneLineAddressSchema, type AddressInput } from "./result";

/** Request schemas of the address product (the answers' schemas are in result.ts). */

export const countrySchema = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "Two letters (ISO 3166-1 alpha-2).")
  .transform(countryCode)
  .describe("ISO 3166-1 alpha-2; `UK` reads as `GB`.");

/** An address object; `country` may come from the request's own `country` instead. */
export const looseFields = z.object({ ...fieldShape, country: countrySchema.optional() });

export const oneLine = z
  .string()
  .min(1)
  .max(500)
  .describe("The whole address on one line (commas or line breaks between its parts).");

/**
 * A union validated by the branch the value's shape picks (a string, an object with `address`, another object), so
 * errors point inside the item (`addresses.3.postcode`) rather than at a bare "invalid union"; documented as the union.
 */
function byShape<S extends z.ZodType, O extends z.ZodType, F extends z.ZodType>(
  string: S,
  oneLineObject: O,
  fields: F,
) {
  const union = z.union([string, oneLineObject, fields]);
  const { $schema: _ignored, ...documented } = z.toJSONSchema(union, { io: "input" }) as Record<string, unknown>;
  return z
    .unknown()
    .transform((value, ctx): z.output<typeof union> => {
      const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
      const branch =
        typeof value === "string" ? string : isObject ? ("address" in value ? oneLineObject : fields) : null;
      const parsed = branch?.safeParse(value);
      if (parsed?.success) return parsed.data as z.output<typeof union>;
      if (!parsed) ctx.addIssue({ code: "custom", message: "Must be an address object or a one-line address string." });
      for (const issue of parsed?.error.issues ?? [])
        ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
      return z.NEVER;
    })
    .meta(documented);
}

const noString = z.never({ error: "A one-line address goes in an object with its country: {address, country}." });

/**
 * One address with its country, as the engines carry it (bulk rows after the run's `country`, monitor entries, list
 * values).
 */
export const addressInput = byShape(
  noString,
  oneLineAddressSchema.extend({ address: oneLine, country: countrySchema }),
  addressFieldsSchema.extend({ country: countrySchema }),
);

/** A row of a batch or bulk list: a one-line address (alone, or with its own country) or an object. */
export const listItem = byShape(
  oneLine,
  z.object({ address: oneLine, country: countrySchema.optional() }),
  looseFields,
);

export type ListItem = z.output<typeof listItem>;

/** The item with its country: its own, else the request's. Null when neither names one. */
export function withCountry(item: ListItem, fallback: string | null | undefined): AddressInput | null {
  if (typeof item === "string") return fallback ? { address: item, country: fallback } : null;
  const country = item.country ?? fallback;
  if (!country) return null;
  return "address" in item && typeof item.address === "string"
    ? { address: item.address, country }
    : { ...(item as z.output<typeof looseFields>), country };
}

export const NO_COUNTRY = "Give the address's `country`, or the request's `country` for every address that has none.";

/**
 * `delivery_point: true` asks a delivery-point partner (docs/address.md, "Delivery-point check"); secret-key lookups
 * only.
 */
export const deliveryPointOption = z
  .boolean()
  .default(false)
  .describe(
    "Ask the configured delivery-point partner whether mail is delivered to the address (1 more credit when it " +
      "answers; free when none does).",
  );
