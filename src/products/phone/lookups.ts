import { z } from "zod";
import { lookupRoute, type LookupShape } from "../../engines/lookup-shape";
import type { BlockQuery, BlockResult } from "./blocks";
import type { PhoneItem } from "./numbering";
import { phoneBlocks } from "./product";
import type { PhoneResult } from "./result";
import { blockResultSchema, phoneItem, phoneObject, phoneResultSchema } from "./schemas";

export const batchBody = z.object({ phones: z.array(phoneItem).min(1).max(1_000) });
const blockParams = z.object({
  country: z.string().regex(/^[A-Za-z]{2}$/, "Two letters (ISO 3166-1 alpha-2)."),
  prefix: z.string().regex(/^\d{1,15}$/, "1 to 15 digits of the national number."),
});

const ANSWER =
  "Answered from the numbering plan (libphonenumber) and the installed prefix tables, never a live network check: `valid`, `e164`, " +
  "`line_type` (mobile, fixed_line, voip, toll_free, ...), carrier and location where a table assigns them, and a documented `risk_score` (docs/phone.md).";
const COST = "1 credit for a fresh valid number; invalid numbers, repeats of the same E.164 number within 7 days and test numbers are free.";

/** Phone's lookups (docs/phone.md): single, batch, browser, and the numbering-plan blocks under a prefix. */
export const phoneLookups: LookupShape = {
  tag: "Phone",
  routes: [
    lookupRoute<PhoneItem, PhoneResult, z.output<typeof phoneObject>>({
      kind: "single",
      method: "post",
      path: "/phone",
      summary: "Look up one number; 1 credit for a fresh valid number",
      description: `A number in international form, or national with \`country\`. ${ANSWER} ${COST} A single lookup never consults the suppression list.`,
      sandbox: true,
      request: { json: phoneObject },
      inputs: ({ json }) => [json],
      response: phoneResultSchema,
      meta: ["suppressed"],
    }),
    lookupRoute<PhoneItem, PhoneResult, z.output<typeof batchBody>>({
      kind: "batch",
      method: "post",
      path: "/phone/batch",
      summary: "Look up 1 to 1,000 numbers in order; counts as one request",
      description: `Each item is a string or \`{phone, country}\`. Walks in order and stops where credits or the key's daily cap run out (\`stopped_reason\`); suppressed numbers answer free from the stored answer. ${COST}`,
      sandbox: true,
      request: { json: batchBody },
      inputs: ({ json }) => json.phones,
      response: phoneResultSchema,
      item: { input: phoneItem, meta: ["suppressed"] },
    }),
    lookupRoute<PhoneItem, PhoneResult, z.output<typeof phoneObject>>({
      kind: "browser",
      method: "post",
      path: "/phone/public",
      summary: "Browser lookup with a publishable key; answers without meta, never a live network check",
      description: `Authenticated by \`key\` in the body and the \`Origin\` header; no bearer key. Billed to the key's account like \`POST /phone\`. ${ANSWER}`,
      request: { json: phoneObject },
      inputs: ({ json }) => [{ phone: json.phone, country: json.country }],
      response: phoneResultSchema,
    }),
    lookupRoute<BlockQuery, BlockResult, unknown, z.output<typeof blockParams>>({
      kind: "read",
      method: "get",
      path: "/phone/block/:country/:prefix",
      product: phoneBlocks,
      summary: "The numbering-plan blocks under a national prefix; 1 credit when found",
      description:
        "The blocks of the national numbering plan that start with `prefix` (no trunk 0), each with its line type, carrier and location where the tables assign them. 1 credit when blocks are found (a repeat of the same country and prefix within 7 days is free); 404 PHONE_BLOCK_NOT_FOUND, free, when none is.",
      request: { param: blockParams },
      inputs: ({ param }) => [{ country: param.country.toUpperCase(), prefix: param.prefix }],
      answer: (data) =>
        data.blocks.length ? { data } : { error: { code: "PHONE_BLOCK_NOT_FOUND", message: `No numbering-plan block of ${data.country} starts with ${data.prefix}.` } },
      response: blockResultSchema,
      errors: ["PHONE_BLOCK_NOT_FOUND"],
    }),
  ],
};
