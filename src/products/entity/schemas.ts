import { z } from "zod";

/** Request schemas of the entity product (the answer's schema is in result.ts). */
export const objectItem = z
  .object({
    identifier: z.string().max(64),
    type: z
      .enum(["lei", "company_number"])
      .nullish()
      .describe(
        "Without it the value says: 20 letters or digits are an LEI, a UK company number's shape (8 digits, or 2 " +
          "letters and 6 digits) a company number in GB; anything else answers `unsupported_register` with a " +
          "`country` whose register is not supported, else `invalid_identifier`.",
      ),
    country: z.string().max(2).nullish().describe("Two letters; required when type is `company_number`."),
  })
  .refine((item) => item.type !== "company_number" || Boolean(item.country?.trim()), {
    path: ["country"],
    message: "Required when type is company_number.",
  });

const leiItem = z
  .string()
  .max(64)
  .describe("An LEI (20 letters or digits) or a UK company number (8 digits, or 2 letters and 6 digits).");

export const unionItem = z.union([leiItem, objectItem]);
const { $schema: _ignored, ...unionItemJsonSchema } = z.toJSONSchema(unionItem, { io: "input" }) as Record<
  string,
  unknown
>;

/**
 * `unionItem`, validated by the item's own shape so that errors point inside it (`identifiers.3.country`) rather than
 * at a bare "invalid union" on `identifiers.3`; documented as the union.
 */
export const entityItem = z
  .unknown()
  .transform((value, ctx): z.output<typeof unionItem> => {
    const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
    if (!isObject && typeof value !== "string") {
      ctx.addIssue({ code: "custom", message: "Must be an LEI string or an {identifier, type, country} object." });
      return z.NEVER;
    }
    const parsed = (isObject ? objectItem : leiItem).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  })
  .meta(unionItemJsonSchema);
