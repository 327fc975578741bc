import { z } from "zod";
import { lookupRoute, type LookupDeclarations } from "../../engines/lookup-declarations";
import type { WalkOptions } from "../../engines/product";
import { emailDomain } from "./domain-product";
import { domainResultSchema, emailResultSchema, type DomainResult, type EmailResult } from "./result";
import { scheduleRecheck } from "./settle";

const lookupOptions = {
  refresh: z.boolean().nullish(),
  max_age: z.int().min(60).max(604_800).nullish(),
  timeout: z.int().min(2).max(60).nullish(),
};

type LookupOptions = { refresh?: boolean | null; max_age?: number | null; timeout?: number | null };

export const singleBody = z
  .object({
    email: z.string().max(254),
    callback_url: z.url().max(2048).nullish(),
    callback_secret: z.string().min(16).max(128).nullish(),
    ...lookupOptions,
  })
  .refine((b) => !b.callback_url || b.callback_secret, {
    path: ["callback_secret"],
    message: "Required with callback_url.",
  });

export const batchBody = z.object({ emails: z.array(z.string().max(254)).min(1).max(50), ...lookupOptions });
export const browserBody = z.object({ email: z.string().max(254) });
const domainParams = z.object({ domain: z.string().max(254) });

const options = (body: LookupOptions): Partial<WalkOptions> => ({
  refresh: body.refresh ?? false,
  maxAgeSeconds: body.max_age ?? null,
  extra: { timeout: body.timeout ?? null },
});

const VERDICTS =
  "`deliverable`: the mailbox accepted the handshake; `risky`: it may bounce or be unwanted (catch-all, disposable, " +
  "role, typo domain, full mailbox); " +
  "`undeliverable`: it will bounce (`reason` says why: syntax, no MX, null MX, username rule, mailbox not found); " +
  "`unverified`: nothing was decided " +
  "(greylisting, timeout, provider outage), free, ask again later. `mailbox_confidence` and `risk_score` follow " +
  "documented formulas (docs/email.md).";
const COST =
  "1 credit for a fresh `deliverable` or `risky` answer; `unverified`, undeliverable without a mailbox check, " +
  "repeats within 7 days and test " +
  "addresses are free; undeliverable after a mailbox check is free within fair use (`fair_use_billed` says when it " +
  "was not).";

/**
 * Email's lookups (docs/email.md): single (with an optional settling callback), batch, browser, and domain
 * intelligence.
 */
export const emailDeclarations: LookupDeclarations = {
  tag: "Email",
  routes: [
    lookupRoute<string, EmailResult, z.output<typeof singleBody>>({
      kind: "single",
      method: "post",
      path: "/email",
      operationId: "verifyEmail",
      tool: {
        title: "Verify an email address",
        description:
          "Checks one address: syntax, MX, disposable/role/free lists, SPF/DMARC, domain age and a mailbox " +
          "handshake (no mail is sent). Costs 1 credit for a usable answer; 0 when `deliverable` is `unverified` or " +
          "undeliverable without a check. deliverable: `deliverable` (mailbox confirmed), `risky` (catch-all, " +
          "disposable, role...), `undeliverable` (no MX, no mailbox); `reason` says why, `risk_score` 0-100.",
        openWorld: true,
        testValues: true,
      },
      summary: "Verify one address",
      description:
        `Runs the full pipeline: syntax, lists, DNS, provider rules and the mailbox handshake. ` +
        `${VERDICTS} ${COST} With \`callback_url\`, an \`unverified\` answer is re-checked and the settled answer ` +
        `posted there (\`meta.settling\`).`,
      sandbox: true,
      request: { json: singleBody },
      urlFields: ["callback_url"],
      inputs: ({ json }) => [json.email],
      options: ({ json }) => options(json),
      response: emailResultSchema,
      meta: ["refreshed", "suppressed", "fair_use_billed", "settling"],
      after: async ({ env, requestId, payer, defer }, body, data) => {
        if (!body.callback_url) return {};
        // Only a paying key's answer settles (the sandbox's never does).
        const keyId = payer?.keyId;
        const settling = Boolean(body.callback_secret && data.reason === "unverified" && payer && keyId);
        if (settling && payer && keyId) {
          const { accountId, dailyCreditCap } = payer;
          const message = {
            requestId,
            accountId,
            keyId,
            dailyCreditCap,
            email: body.email,
            callbackUrl: body.callback_url,
            callbackSecret: body.callback_secret!,
            timeout: body.timeout ?? null,
          };
          const schedule = () => scheduleRecheck(env, message, { blocked: data.smtp_reason === "blocked" });
          // Once the answer is out: a request that ends in an error after all told nobody it was settling, and its
          // re-check would bill an answer the caller may be asking for again.
          if (defer) defer(schedule, async () => {});
          else await schedule();
        }
        return { settling };
      },
    }),
    lookupRoute<string, EmailResult, z.output<typeof batchBody>>({
      kind: "batch",
      method: "post",
      path: "/email/batch",
      operationId: "verifyEmails",
      tool: {
        title: "Verify up to 50 email addresses",
        description:
          "As verify_email for 1 to 50 addresses, in order; duplicates and suppressed addresses are free. " +
          "Stops early (meta.stopped_reason) when credits or the key's daily cap run out; what was answered is kept.",
        openWorld: true,
      },
      summary: "Verify 1 to 50 addresses in order; counts as one request",
      description:
        `Each address is answered as \`POST /email\` answers it, in input order; suppressed addresses ` +
        `answer free from the stored answer. Walks in order and stops where credits or the key's daily cap run out ` +
        `(\`stopped_reason\`); 402 only when the first address cannot be paid. ${COST}`,
      sandbox: true,
      request: { json: batchBody },
      inputs: ({ json }) => json.emails,
      options: ({ json }) => options(json),
      response: emailResultSchema,
      item: { input: z.string(), meta: ["suppressed", "refreshed", "fair_use_billed"] },
    }),
    lookupRoute<string, EmailResult, z.output<typeof browserBody>>({
      kind: "browser",
      method: "post",
      path: "/email/public",
      operationId: "verifyEmailPublic",
      summary: "Browser lookup with a publishable key; answers without meta",
      description:
        `Authenticated by \`key\` in the body and the \`Origin\` header; no bearer key. Billed to the ` +
        `key's account like \`POST /email\`. ${VERDICTS} Of a sending policy only its \`action\` is shown.`,
      request: { json: browserBody },
      inputs: ({ json }) => [json.email],
      options: () => options({}),
      response: emailResultSchema,
    }),
    lookupRoute<string, DomainResult, unknown, z.output<typeof domainParams>>({
      kind: "read",
      method: "get",
      path: "/email/domain/:domain",
      operationId: "lookupEmailDomain",
      tool: {
        title: "Look up an email domain",
        description:
          "Domain intelligence: MX and mail provider, SPF, DMARC, registration age, disposable/free lists. 1 " +
          "credit only when the domain receives mail (mx_found) and it is not a repeat; `valid: false` answers are " +
          "free.",
        openWorld: true,
      },
      product: emailDomain,
      summary: "Domain intelligence; 1 credit only when mx_found and fresh",
      description:
        "MX, SPF, DMARC, disposable, free-provider and registration age of a domain, without any mailbox handshake. " +
        "1 credit when `mx_found` is true and the answer is not a 7-day repeat; free otherwise. Without an answer " +
        "from DNS nothing is decided or billed: 500 SERVER_ERROR, retry.",
      sandbox: true,
      request: { param: domainParams },
      inputs: ({ param }) => [param.domain],
      options: () => options({}),
      // A resolver outage decides nothing (mx_found unknown) and bills nothing: the caller is told to retry rather
      // than handed booleans the spec promises but DNS never gave (docs/api-decisions.md).
      answer: (data) =>
        data.valid && data.mx_found === null
          ? {
              error: {
                code: "SERVER_ERROR",
                message: "The DNS resolver did not answer, so nothing was decided or billed. Retry shortly.",
              },
            }
          : { data },
      response: domainResultSchema,
    }),
  ],
};
