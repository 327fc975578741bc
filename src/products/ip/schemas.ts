import { z } from "zod";
import { MAX_ENTRIES_PER_LIST } from "./lists";

/** Request schemas of the IP product (the answers' schemas are in result.ts). */
export const listEntry = z
  .union([z.string().max(64), z.int().min(0).max(4_294_967_295)])
  .describe("An address, a CIDR block, or an AS number (`AS64496` or 64496).");

export const listFields = {
  name: z.string().trim().min(1).max(100),
  kind: z.enum(["allow", "deny"]),
  entries: z.array(listEntry).max(MAX_ENTRIES_PER_LIST),
};

export const listSchema = z.object({
  id: z.int(),
  name: z.string(),
  kind: z.enum(["allow", "deny"]),
  entries: z.array(z.string()),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
