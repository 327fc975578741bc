import { Hono } from "hono";
import type { AppEnv } from "../../types";
import { openApiDocument, type OperationExample } from "../../http/openapi";
import { countWord, productExamples, productSubjects, sandboxValues } from "../../products/intro";
import { registeredProducts } from "../../products/registry";
import accountExamples from "./account-examples.json";
import { browserEndpoints } from "./reference";

type Routes = Parameters<typeof openApiDocument>[0];

/**
 * One tag per product (its lookups' tag, described by its surface), in registry order, then the account-wide parts;
 * engine routes (bulk, monitors, lists...) sit under their product.
 */
export const TAGS = [
  ...registeredProducts().map((p) => ({ name: p.lookups?.tag ?? p.name, description: p.surface.tagDescription })),
  { name: "Account", description: "The key's account: balance, ledger, what one request did." },
  { name: "Status", description: "The datasets behind the answers, their versions and coverage. No key." },
  { name: "Webhooks", description: "Signed test deliveries to check a receiver." },
];

/**
 * Each product's tag under the path its lookups start with (`/address`, `/address/autocomplete`), longest first: a
 * product served under another's path (autocomplete under address) keeps its own tag.
 */
const PRODUCT_TAGS: [string, string][] = registeredProducts()
  .map((p): [string, string] => [`/api/v1${p.lookups?.routes[0]?.path ?? `/${p.name}`}`, p.lookups?.tag ?? p.name])
  .sort(([a], [b]) => b.length - a.length);

/**
 * A product's routes carry its tag whatever their route doc says (`Bulk`, `Lists`, `IP lists`...); others keep theirs.
 */
export function tagOf(tag: string | undefined, path: string): string | undefined {
  return PRODUCT_TAGS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`))?.[1] ?? tag;
}

/** The document's intro: the products it names and their sandbox values come from the registry (products/intro.ts). */
const description = () =>
  `Verification of ${productSubjects()}. Every answer lists the datasets it used (\`sources\`) and its scores are ` +
  `computed by documented formulas from fields in the answer.

**Keys.** Server calls send a secret key as \`Authorization: Bearer sk_live_...\`. The sandbox key
\`sk_test_public_sandbox\` answers the test values only (${sandboxValues("brief")}), free. Browser pages use a ` +
  `publishable key \`pk_live_...\` in the body of the ${countWord(browserEndpoints().length)} \`/public\` endpoints.

**Billing.** A lookup costs credits only when it gives an answer (\`meta.credits_used\`, \`meta.credits_remaining\`);
test values, repeats within 7 days, refusals and our own failures are free.

**Errors.** \`{success: false, error: {code, message, request_id}}\` with the status of its code. Guides: ` +
  `\`/llms.txt\`.`;

const header = (name: string, description: string, required = true) => ({
  name,
  in: "header",
  required,
  description,
  schema: { type: "string" },
});

/** Every delivery (bulk run finished, monitor run, settled callback, test) carries the same headers. */
const WEBHOOKS = {
  delivery: {
    post: {
      operationId: "receiveDelivery",
      summary: "A signed delivery to your webhook_url or callback_url",
      description:
        "Events: `bulk_{product}_job.finished`, `{product}_monitor.run`, `email.settled`. Verify " +
        "`X-Service-Signature-V2` (HMAC-SHA256 keyed with the secret exactly as returned, `whsec_` included, over " +
        "`v2:{t}:{raw body}`; reject a `t` more than 300 s from your clock), then drop a `Webhook-Delivery-Id` " +
        "you already processed: it is the same on every attempt and redelivery of one delivery. Answer 2xx " +
        "quickly; connection errors, timeouts and 5xx are retried (3 attempts). A body is at most 8 MiB " +
        "(8,388,608 bytes); a larger one is not sent, and the delivery fails with a `webhook_detail` saying so. " +
        "The request carries no key: authenticate it by the signature alone. " +
        "A `{product}_monitor.run` body is the run's answer: each entry of its `changes` carries `reason` " +
        "(`recheck`, `feedback`, `suppressed`, `dataset`, `partner` or null), as in the monitor's run answer.",
      tags: ["Webhooks"],
      // No key: your receiver authenticates a delivery by its signature (X-Service-Signature-V2 below).
      security: [],
      parameters: [
        header("X-Service-Signature-V2", '`t={unix seconds},v2={lowercase hex HMAC-SHA256 of "v2:{t}:{raw body}"}`'),
        header("X-Service-Signature", "Hex HMAC-SHA256 of the raw body; sent until 1 March 2027.", false),
        header(
          "Webhook-Delivery-Id",
          "`whd_{id}`, the same on every attempt and redelivery of one delivery (`whd_test_{uuid}` for a test " +
            "delivery). Not signed: check it after the signature.",
        ),
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { type: "object", required: ["event"], properties: { event: { type: "string" } } },
          },
        },
      },
      responses: { "200": { description: "Any 2xx: delivered. 3xx and 4xx: failed at once. 5xx, timeouts: retried." } },
    },
  },
};

/**
 * The examples (test values, answers recorded from the app and checked by test/http/openapi-examples.test.ts): each
 * product's from its surface (its folder's examples.json), then the account's.
 */
export const OPERATION_EXAMPLES: Record<string, readonly OperationExample[]> = {
  ...productExamples(),
  ...accountExamples,
};

/**
 * Every operation's examples: the hand-written ones above (replayed by test/http/openapi-examples.test.ts), else one
 * real answer recorded by the tests (`npm run openapi:examples`, src/surfaces/api/recorded-examples.json). Imported
 * on the document's first request, so the isolate does not read them at start-up.
 */
async function allExamples(): Promise<Record<string, readonly OperationExample[]>> {
  const recorded = (await import("./recorded-examples.json")).default as Record<string, readonly OperationExample[]>;
  return { ...recorded, ...OPERATION_EXAMPLES };
}

/**
 * `GET /api/v1/openapi.json`, no key: built on the first request (not at start-up) from the finished route table, then
 * served with the origin it was asked at as its server, so a reference page or a generator calls this API.
 */
export function openApiRoutes(routes: () => Routes) {
  // Only the built document is shared between requests, never a build under way (src/platform/io-scope.ts).
  let document: ReturnType<typeof openApiDocument> | undefined;
  const build = async () =>
    openApiDocument(routes(), "/api/v1", {
      description: description(),
      tags: TAGS,
      tagOf,
      examples: await allExamples(),
      webhooks: WEBHOOKS,
    });
  return new Hono<AppEnv>().get("/openapi.json", async (c) =>
    c.json({ ...(document ?? (document = await build())), servers: [{ url: new URL(c.req.url).origin }] }),
  );
}
