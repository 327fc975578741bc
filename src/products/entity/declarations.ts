import { z } from "zod";
import { lookupRoute, type LookupDeclarations } from "../../engines/lookup-declarations";
import type { EntityItem } from "./lookup";
import type { EntityResult } from "./result";
import { entityResultSchema } from "./result";
import { entityItem, objectItem, unionItem } from "./schemas";

export const batchBody = z.object({ identifiers: z.array(entityItem).min(1).max(500) });

const ANSWER =
  "Answered from registers synced locally (GLEIF for LEIs, national company registers): `found` with the legal name, " +
  "status, address and register; " +
  "`found: false` with a `reason` (unknown identifier, checksum failure, unsupported or not-installed register) " +
  "(docs/entity.md).";
const COST = "1 credit per identifier a register carries, not for a repeat within 7 days; everything else is free.";

/** Entity's lookups (docs/entity.md): single and batch. */
export const entityDeclarations: LookupDeclarations = {
  tag: "Entity",
  routes: [
    lookupRoute<EntityItem, EntityResult, z.output<typeof objectItem>>({
      kind: "single",
      method: "post",
      path: "/entity",
      operationId: "lookupEntity",
      tool: {
        title: "Look up a company identifier",
        description:
          "An LEI or a national company number, from registers synced locally: name, status, addresses, " +
          "flags. `found: false` with a reason (e.g. `register_not_installed`) is free; 1 credit when a register " +
          "carries it.",
        openWorld: false,
      },
      summary: "Look up one LEI or company number; 1 credit when a register carries it and it is not a 7-day repeat",
      description: `\`identifier\` with its \`type\` and \`country\` where needed. ${ANSWER} ${COST}`,
      request: { json: objectItem },
      inputs: ({ json }) => [json],
      response: entityResultSchema,
    }),
    lookupRoute<EntityItem, EntityResult, z.output<typeof batchBody>>({
      kind: "batch",
      method: "post",
      path: "/entity/batch",
      operationId: "lookupEntities",
      tool: {
        title: "Look up up to 500 company identifiers",
        description:
          "As lookup_entity for 1 to 500 identifiers (an LEI string or {identifier, type, country}). 1 credit " +
          "per found identifier.",
        openWorld: false,
      },
      summary: "Look up 1 to 500 identifiers in order; counts as one request",
      description:
        `Strings are read as LEIs. Walks in order and stops where credits or the key's daily cap run out ` +
        `(\`stopped_reason\`); \`meta.found\` counts the identifiers a register carried. ${COST}`,
      request: { json: batchBody },
      inputs: ({ json }) => json.identifiers,
      options: () => ({ honorSuppressions: false }),
      response: entityResultSchema,
      item: { input: unionItem, meta: [] },
      counts: { found: (data) => data.found },
    }),
  ],
};
