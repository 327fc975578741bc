import type { z } from "zod";
import { lookupRoute, type LookupDeclarations } from "../../engines/lookup-declarations";
import type { ConsistencyResult } from "./result";
import type { ConsistencyInput } from "./schemas";
import { consistencyResultSchema } from "./result";

/** Consistency's one lookup (docs/consistency.md); its body is the product's input, built from the other products'. */
export const consistencyDeclarations = (
  request: z.ZodType<ConsistencyInput & { network: boolean }>,
): LookupDeclarations => ({
  tag: "Consistency",
  routes: [
    lookupRoute<ConsistencyInput, ConsistencyResult, ConsistencyInput & { network: boolean }>({
      kind: "single",
      method: "post",
      path: "/consistency",
      operationId: "checkConsistency",
      tool: {
        title: "Check one sign-up's signals agree",
        description:
          "Compares two or more of email, phone, IP, address and company of one person or sign-up and names " +
          "each agreement and disagreement with the fields that decided it; `score` and `level` sum them up. The " +
          "signals are not billed; 1 credit when a check was decided (score not null).",
        openWorld: true,
      },
      summary: "Compare two or more signals; 1 credit when a check was decided and it is not a 7-day repeat",
      description:
        "Each signal is answered by its own product (email without the mailbox handshake), all at once; the signals " +
        "are not billed. `checks` says which pairs agree (e.g. the phone's country and the IP's), `score` sums the " +
        "decided checks by a documented formula, null when nothing was decided (docs/consistency.md). 1 credit " +
        "when a check was decided and the same signal set was not asked in the last 7 days; free otherwise. " +
        "`network: true` runs the phone signal's live network check (as on `POST /phone`): " +
        "`signals.phone.line_type_source: network` and the check `phone_line_not_virtual` decided on the live line " +
        "type, 1 more credit when the partner answers, the whole call free with `reason: partner_unavailable` when " +
        "none does.",
      sandbox: true,
      request: { json: request },
      inputs: ({ json: { network: _network, ...input } }) => [input],
      options: ({ json }) => ({ extra: { network: json.network } }),
      response: consistencyResultSchema,
    }),
  ],
});
