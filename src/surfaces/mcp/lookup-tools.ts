import { z } from "zod";
import { argumentsOf, callFor, docOf, walkOptions, type Routes, type ToolSpec } from "./tool";

interface Lookup {
  name: string;
  title: string;
  description: string;
  method: "GET" | "POST";
  path: string;
  /** The product (or companion) the walk prices: `email_domain` is email's domain lookups. */
  product: string;
  /** The values the route hands the walk. */
  values(args: Record<string, unknown>): unknown[];
  /** Batches consult the suppression list; single lookups never do (as the routes). */
  batch: boolean;
  openWorld: boolean;
}

const without = (args: Record<string, unknown>, ...names: string[]) => {
  const rest = { ...args };
  for (const name of [...names, "max_credits"]) delete rest[name];
  return rest;
};
const list = (field: string) => (args: Record<string, unknown>) => (args[field] as unknown[] | undefined) ?? [];

const REPEAT =
  "A value this account looked up in the last 7 days answers free from the repeat window (meta.cache_hit).";
const TEST = "Test values (docs: test values) always answer the same way and cost nothing.";
// An agent reads the answer, not the docs: it must not take a synthetic sample's row for a register's word.
const SOURCES =
  "data.sources names each dataset behind the answer with its coverage: `full`, `partial` (part of the file: a " +
  "value it lacks is not known either way) or `sample` (synthetic rows; the answer's reason is then `sample_data`).";

const LOOKUPS: Lookup[] = [
  {
    name: "verify_email",
    title: "Verify an email address",
    description:
      `Checks one address: syntax, MX, disposable/role/free lists, SPF/DMARC, domain age and a mailbox ` +
      `handshake (no mail is sent). Costs 1 credit for a usable answer; 0 when \`deliverable\` is \`unverified\` or ` +
      `undeliverable without a check. deliverable: \`deliverable\` (mailbox confirmed), \`risky\` (catch-all, ` +
      `disposable, role...), \`undeliverable\` (no MX, no mailbox); \`reason\` says why, \`risk_score\` 0-100. ` +
      `${REPEAT} ${TEST}`,
    method: "POST",
    path: "/email",
    product: "email",
    values: (args) => [args.email],
    batch: false,
    openWorld: true,
  },
  {
    name: "verify_emails",
    title: "Verify up to 50 email addresses",
    description:
      `As verify_email for 1 to 50 addresses, in order; duplicates and suppressed addresses are free. ` +
      `Stops early (meta.stopped_reason) when credits or the key's daily cap run out; what was answered is kept. ` +
      `${REPEAT}`,
    method: "POST",
    path: "/email/batch",
    product: "email",
    values: list("emails"),
    batch: true,
    openWorld: true,
  },
  {
    name: "lookup_email_domain",
    title: "Look up an email domain",
    description:
      `Domain intelligence: MX and mail provider, SPF, DMARC, registration age, disposable/free lists. 1 ` +
      `credit only when the domain receives mail (mx_found) and it is not a repeat; \`valid: false\` answers are ` +
      `free. ${REPEAT}`,
    method: "GET",
    path: "/email/domain/:domain",
    product: "email_domain",
    values: (args) => [args.domain],
    batch: false,
    openWorld: true,
  },
  {
    name: "lookup_phone",
    title: "Look up a phone number",
    description:
      `Numbering-plan validity, line type, allocated carrier and region, risk flags; nothing is sent to ` +
      `the number. With \`network: true\` a partner's live carrier-network check adds network_status (\`active\`, ` +
      `\`inactive\`, \`unknown\`). 1 credit for a fresh valid number; invalid numbers are free. ${REPEAT} ${TEST}`,
    method: "POST",
    path: "/phone",
    product: "phone",
    values: (args) => [without(args)],
    batch: false,
    openWorld: false,
  },
  {
    name: "lookup_phones",
    title: "Look up up to 1,000 phone numbers",
    description:
      `As lookup_phone for 1 to 1,000 numbers (strings or objects), in order; duplicates and suppressed ` +
      `numbers are free; stops early when credits run out. ${REPEAT}`,
    method: "POST",
    path: "/phone/batch",
    product: "phone",
    values: list("phones"),
    batch: true,
    openWorld: false,
  },
  {
    name: "lookup_ip",
    title: "Look up an IP address",
    description:
      `Country and location, ASN and network, hosting provider, Tor/VPN/proxy lists (null when no ` +
      `installed list covers them), the account's allow/deny lists, risk_score. Five fresh lookups that place an ` +
      `address cost 1 credit (meta.ip_lookups_prepaid counts what is left); unplaced addresses are free. ${REPEAT}`,
    method: "POST",
    path: "/ip",
    product: "ip",
    values: (args) => [args.ip],
    batch: false,
    openWorld: false,
  },
  {
    name: "lookup_ips",
    title: "Look up up to 1,000 IP addresses",
    description: `As lookup_ip for 1 to 1,000 addresses, in order; five placing lookups per credit. ${REPEAT}`,
    method: "POST",
    path: "/ip/batch",
    product: "ip",
    values: list("ips"),
    batch: true,
    openWorld: false,
  },
  {
    name: "verify_address",
    title: "Verify a postal address",
    description:
      `Reads and checks one postal address (one line or components, with an ISO country) against ` +
      `installed reference datasets. verification: \`verified\` (found as given or corrected), \`partial\`, ` +
      `\`unverified\`, or \`format_only\` (no dataset covers the country, reason \`not_covered\`). 1 credit only ` +
      `when verified. ${REPEAT} ${TEST}`,
    method: "POST",
    path: "/address",
    product: "address",
    values: (args) => [args.address],
    batch: false,
    openWorld: false,
  },
  {
    name: "verify_addresses",
    title: "Verify up to 100 postal addresses",
    description:
      `As verify_address for 1 to 100 addresses; \`country\` applies to one-line items without their own. ` +
      `1 credit per verified answer. ${REPEAT}`,
    method: "POST",
    path: "/address/batch",
    product: "address",
    values: list("addresses"),
    batch: true,
    openWorld: false,
  },
  {
    name: "lookup_entity",
    title: "Look up a company identifier",
    description:
      `An LEI or a national company number, from registers synced locally: name, status, addresses, ` +
      `flags. \`found: false\` with a reason (e.g. \`register_not_installed\`) is free; 1 credit when a register ` +
      `carries it. ${REPEAT}`,
    method: "POST",
    path: "/entity",
    product: "entity",
    values: (args) => [without(args)],
    batch: false,
    openWorld: false,
  },
  {
    name: "lookup_entities",
    title: "Look up up to 500 company identifiers",
    description:
      `As lookup_entity for 1 to 500 identifiers (an LEI string or {identifier, type, country}). 1 credit ` +
      `per found identifier. ${REPEAT}`,
    method: "POST",
    path: "/entity/batch",
    product: "entity",
    values: list("identifiers"),
    batch: true,
    openWorld: false,
  },
  {
    name: "check_consistency",
    title: "Check one sign-up's signals agree",
    description:
      `Compares two or more of email, phone, IP, address and company of one person or sign-up and names ` +
      `each agreement and disagreement with the fields that decided it; \`score\` and \`level\` sum them up. The ` +
      `signals are not billed; 1 credit when a check was decided (score not null). ${REPEAT}`,
    method: "POST",
    path: "/consistency",
    product: "consistency",
    values: (args) => [without(args)],
    batch: false,
    openWorld: true,
  },
];

export const maxCredits = z
  .int()
  .min(0)
  .optional()
  .describe(
    "Refuse (MAX_CREDITS_EXCEEDED, nothing held or charged) if the call could cost more than this many credits",
  );

/** The lookup tools: each over one documented route, its arguments that route's parameters and body. */
export function lookupTools(routes: Routes): ToolSpec[] {
  return LOOKUPS.map((lookup) => {
    const doc = docOf(routes, lookup.method, lookup.path);
    return {
      name: lookup.name,
      title: lookup.title,
      description: `${lookup.description} ${SOURCES}`,
      // Lookups spend credits: not read-only, so a host that auto-approves read-only tools still asks first.
      readOnly: false,
      openWorld: lookup.openWorld,
      input: argumentsOf(doc).extend({ max_credits: maxCredits }),
      data: doc.response ?? z.object({}),
      meta: doc.meta ?? z.object({}),
      toCall: (args) => callFor(lookup.method, lookup.path, args),
      cost: async (args) => ({
        product: lookup.product,
        values: lookup.values(args),
        options: walkOptions(args, lookup.batch, { country: args.country, timeout: args.timeout }),
      }),
    };
  });
}
