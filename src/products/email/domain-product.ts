import { z } from "zod";
import { database } from "../../db/client";
import type { Product } from "../../engines/product";
import { emailConfig } from "./config";
import { domainIntelligence, invalidDomain, normalizeDomain } from "./domain";
import type { DomainResult } from "./result";
import { domainMonitor } from "./monitor";
import { cannedDomain } from "./test-addresses";

/**
 * `GET /email/domain/{domain}` as a product of its own for the walk: it shares email's repeat window (keys `@domain`),
 * bills 1 only when the domain accepts mail and the answer is fresh, and has no list or bulk run of its own. Its
 * monitors are email's domain monitors (`/email/domain-monitors`, family `email_domain`).
 */
export const emailDomain: Product<string, DomainResult> = {
  name: "email",
  scope: "email",
  input: z.string().max(254),
  unitsPerCredit: 1,
  cost: "remote",
  normalize: (raw) => {
    const domain = normalizeDomain(raw);
    return domain ? `@${domain}` : `invalid:${raw}`;
  },
  async local(raw) {
    const domain = normalizeDomain(raw);
    if (!domain) return { result: invalidDomain(raw), test: false };
    const canned = cannedDomain(domain);
    return canned ? { result: canned, test: true } : null;
  },
  lookup: (ctx, inputs) =>
    Promise.all(
      inputs.map(async (raw) => ({
        result: await domainIntelligence(emailConfig(ctx.env).dns, database(ctx.env), normalizeDomain(raw)!, ctx.now),
      })),
    ),
  price: (result) => ({ units: result.mx_found ? 1 : 0 }),
  repeatable: (result) => result.mx_found !== null,
  repeats: "stored",
  monitor: domainMonitor,
  isSample: (raw) => {
    const domain = normalizeDomain(raw);
    return domain !== null && cannedDomain(domain) !== null;
  },
  datasets: [
    "live-dns",
    "disposable-domains",
    "free-provider-domains",
    "mx-provider-patterns",
    "provider-rules",
    "rdap-registration",
    "mailbox-smtp",
    "test-addresses",
  ],
};
