import { z } from "zod";
import { lookupRoute, type LookupDeclarations } from "../../engines/lookup-declarations";
import type { BlockQuery } from "./blocks";
import type { PhoneItem } from "./numbering";
import { phoneBlocks } from "./product";
import { blockResultSchema, phoneResultSchema, type BlockResult, type PhoneResult } from "./result";
import { phoneBatchRequest, phoneObject, phoneRequest, phoneItem } from "./schemas";

const blockParams = z.object({
  country: z.string().regex(/^[A-Za-z]{2}$/, "Two letters (ISO 3166-1 alpha-2)."),
  prefix: z.string().regex(/^\d{1,15}$/, "1 to 15 digits of the national number."),
});

const ANSWER =
  "Answered from the numbering plan (libphonenumber) and the installed prefix tables: `valid`, `e164`, " +
  "`line_type` (mobile, fixed_line, voip, toll_free, ...), carrier and location where a table assigns them, and a " +
  "documented `risk_score` (docs/phone.md).";
const COST =
  "1 credit for a fresh valid number; invalid numbers, repeats of the same E.164 number within 7 days and test " +
  "numbers are free.";
const NETWORK =
  "`network: true` adds the live carrier-network check through the configured partner (`network_checked`, " +
  "`network_status`, the current " +
  "carrier with `carrier_source: network`): 1 more credit when the partner answers, and the whole answer is free " +
  "with `reason: partner_unavailable` when none does (docs/partners.md).";

/** Phone's lookups (docs/phone.md): single, batch, browser, and the numbering-plan blocks under a prefix. */
export const phoneDeclarations: LookupDeclarations = {
  tag: "Phone",
  routes: [
    lookupRoute<PhoneItem, PhoneResult, z.output<typeof phoneRequest>>({
      kind: "single",
      method: "post",
      path: "/phone",
      operationId: "lookupPhone",
      tool: {
        title: "Look up a phone number",
        description:
          "Numbering-plan validity, line type, allocated carrier and region, risk flags; nothing is sent to " +
          "the number. With `network: true` a partner's live carrier-network check adds network_status (`active`, " +
          "`inactive`, `unknown`). 1 credit for a fresh valid number; invalid numbers are free.",
        // `network` / `delivery_point` send the value to a partner.
        openWorld: true,
        testValues: true,
      },
      summary: "Look up one number; 1 credit for a fresh valid number",
      description:
        `A number in international form, or national with \`country\`. ${ANSWER} ${COST} ${NETWORK} A ` +
        `single lookup never consults the suppression list.`,
      sandbox: true,
      request: { json: phoneRequest },
      inputs: ({ json: { network: _network, ...item } }) => [item],
      options: ({ json }) => ({ extra: { network: json.network } }),
      response: phoneResultSchema,
      meta: ["suppressed"],
    }),
    lookupRoute<PhoneItem, PhoneResult, z.output<typeof phoneBatchRequest>>({
      kind: "batch",
      method: "post",
      path: "/phone/batch",
      operationId: "lookupPhones",
      tool: {
        title: "Look up up to 1,000 phone numbers",
        description:
          "As lookup_phone for 1 to 1,000 numbers (strings or objects), in order; duplicates and suppressed " +
          "numbers are free; stops early when credits run out.",
        // `network` / `delivery_point` send the value to a partner.
        openWorld: true,
      },
      summary: "Look up 1 to 1,000 numbers in order; counts as one request",
      description:
        `Each item is a string or \`{phone, country}\`. Walks in order and stops where credits or the ` +
        `key's daily cap run out (\`stopped_reason\`); suppressed numbers answer free from the stored answer. ` +
        `${COST} ${NETWORK} Each distinct number is checked once.`,
      sandbox: true,
      request: { json: phoneBatchRequest },
      inputs: ({ json }) => json.phones,
      options: ({ json }) => ({ extra: { network: json.network } }),
      response: phoneResultSchema,
      item: { input: phoneItem, meta: ["suppressed"] },
    }),
    lookupRoute<PhoneItem, PhoneResult, z.output<typeof phoneObject>>({
      kind: "browser",
      method: "post",
      path: "/phone/public",
      operationId: "lookupPhonePublic",
      summary: "Browser lookup with a publishable key; answers without meta, never a live network check",
      description:
        `Authenticated by \`key\` in the body and the \`Origin\` header; no bearer key. Billed to the ` +
        `key's account like \`POST /phone\`. ${ANSWER} Never runs the live network check: a \`network\` field is ` +
        `ignored.`,
      request: { json: phoneObject },
      inputs: ({ json }) => [{ phone: json.phone, country: json.country }],
      response: phoneResultSchema,
    }),
    lookupRoute<BlockQuery, BlockResult, unknown, z.output<typeof blockParams>>({
      kind: "read",
      method: "get",
      path: "/phone/block/:country/:prefix",
      operationId: "lookupPhoneBlock",
      product: phoneBlocks,
      summary: "The numbering-plan blocks under a national prefix; 1 credit when found",
      description:
        "The blocks of the national numbering plan that start with `prefix` (no trunk 0), each with its line type, " +
        "carrier and location where the tables assign them. 1 credit when blocks are found (a repeat of the same " +
        "country and prefix within 7 days is free); 404 PHONE_BLOCK_NOT_FOUND, free, when none is.",
      request: { param: blockParams },
      inputs: ({ param }) => [{ country: param.country.toUpperCase(), prefix: param.prefix }],
      answer: (data) =>
        data.blocks.length
          ? { data }
          : {
              error: {
                code: "PHONE_BLOCK_NOT_FOUND",
                message: `No numbering-plan block of ${data.country} starts with ${data.prefix}.`,
              },
            },
      response: blockResultSchema,
      errors: ["PHONE_BLOCK_NOT_FOUND"],
    }),
  ],
};
