import { z } from "zod";

/** Request schemas of the phone product (the answers' schemas are in result.ts). */
const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "Two letters (ISO 3166-1 alpha-2).")
  .nullish()
  .describe("Region of a number written without `+` (ISO 3166-1 alpha-2).");

export const phoneObject = z.object({ phone: z.string().max(64), country });

/** `network: true` asks the live network check (docs/phone.md, "Live network check"); secret-key lookups only. */
export const networkOption = z
  .boolean()
  .default(false)
  .describe(
    "Run the live carrier-network check through the configured partner (1 more credit when it answers; free when " +
      "none does).",
  );

/** One number: a string (with `+`, or it answers INVALID_COUNTRY) or `{phone, country}`. */
export const phoneItem = z.union([z.string().max(64), phoneObject]);

/** `POST /phone`: one number and the lookup's options. */
export const phoneRequest = phoneObject.extend({ network: networkOption });

/** `POST /phone/batch`: 1 to 1,000 numbers and the options every item shares. */
export const phoneBatchRequest = z.object({ phones: z.array(phoneItem).min(1).max(1_000), network: networkOption });
