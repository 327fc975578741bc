/**
 * Every customer-facing size or count limit, each with the internal hops its data crosses and their ceilings, read
 * from where the code defines them (the registry's schemas, the engines' and the sidecar's constants,
 * src/platform/cloudflare-limits.ts for the platform's). A hop must take what the customer limit lets through, or
 * split it across calls (`chunked`): a lower ceiling would cut a valid request short somewhere nobody sees.
 * hops.node.test.ts checks every hop; docs/architecture.md ("Limits across hops") shows the table.
 */
import type { z } from "zod";
import { alertBodies } from "../../src/engines/monitors/alert-mail";
import { CHUNK_ENTRIES } from "../../src/engines/bulk/jobs";
import { mimeComposer } from "../../src/engines/mail/compose";
import { monitorRequest } from "../../src/engines/monitors/request";
import { BASELINES_PER_STATEMENT } from "../../src/engines/monitors/store";
import type { Product } from "../../src/engines/product";
import { INLINE_BODY_BYTES } from "../../src/engines/webhooks/body-store";
import { UPLOAD_MAX_BYTES } from "../../src/surfaces/dashboard/bulk-upload";
import { BODY_BYTES } from "../../src/http/body";
import { CLOUDFLARE_LIMITS } from "../../src/platform/cloudflare-limits";
import { SIDECAR_LIMITS } from "../../src/platform/domain-probe";
import { MAX_WEBHOOK_BODY_BYTES } from "../../src/platform/webhooks";
import { registeredProducts } from "../../src/products/registry";
import { createBody, MAX_BULK_ROWS } from "../../src/surfaces/bulk-acts";
import { MAX_DELIVER_BODY_BYTES, MAX_DELIVER_REQUEST_BYTES } from "../../workers/smtp-sidecar/deliver.mjs";
import { LIMITS as PROBE_LIMITS } from "../../workers/smtp-sidecar/request-schema.mjs";
import { MAX_SUBMIT_BYTES, MAX_SUBMIT_REQUEST_BYTES } from "../../workers/smtp-sidecar/submit.mjs";
import { listField, maxItems, plainBytes } from "./plain-bytes";

// mimetext loads on first use (src/engines/mail/compose.ts).
const composeMime = await mimeComposer();

export interface Hop {
  name: string;
  /** What the hop takes at most, in `unit`. */
  ceiling: number;
  unit: "items" | "bytes" | "statements";
  /** What the customer limit at its maximum puts through the hop, in `unit`. */
  load: number;
  /** The data is split into calls of at most `ceiling` each, so the ceiling need not hold the whole load. */
  chunked: boolean;
  /** Where the ceiling is defined. */
  where: string;
  /** A ceiling known to be below the load and not yet lifted: why, and what would lift it (KNOWN_DEFECTS). */
  defect?: string;
}

export interface CustomerLimit {
  limit: string;
  customerMax: number;
  unit: "items" | "bytes";
  /** Where the customer limit is defined. */
  where: string;
  hops: Hop[];
  /** The tests at the limit and one over, as `file › name` (those in customer-limits.test.ts run per table row). */
  tests: string[];
}

/** The tests this change adds (customer-limits.test.ts), by the names they run under. */
const BEHAVIOUR = "test/limits/customer-limits.test.ts";

/**
 * The largest shared mailbox answer (src/products/email/store.ts `SharedMailbox`): an address and a domain at their
 * longest, the longest outcome name, a timestamp. One email handshake's answer, as it travels to D1.
 */
const SHARED_ANSWER_BYTES = JSON.stringify({
  email: "x".repeat(SIDECAR_LIMITS.addressLength),
  domain: "x".repeat(253),
  outcome: "provider_unavailable",
  checkedAt: Number.MAX_SAFE_INTEGER,
  catchAll: false,
}).length;

/** The mailbox handshake hops of `count` email values looked up in one go, their answers shared as `shared`. */
function mailboxHops(count: number, shared: { name: string; ceiling: number; where: string }): Hop[] {
  return [
    {
      name: "addresses per sidecar probe call (Worker side)",
      ceiling: SIDECAR_LIMITS.addresses,
      unit: "items",
      load: count,
      chunked: true,
      where: "src/platform/domain-probe.ts SIDECAR_LIMITS.addresses",
    },
    {
      name: "addresses per POST /v1/probe (sidecar)",
      ceiling: PROBE_LIMITS.addresses.max,
      unit: "items",
      load: count,
      chunked: true,
      where: "workers/smtp-sidecar/request-schema.mjs LIMITS.addresses.max",
    },
    { ...shared, unit: "bytes", load: count * (SHARED_ANSWER_BYTES + 1), chunked: false },
  ];
}

const bodyReader = (load: number, which: "json" | "bulk"): Hop => ({
  name: `request body reader (${which})`,
  ceiling: BODY_BYTES[which],
  unit: "bytes",
  load,
  chunked: false,
  where: `src/http/body.ts BODY_BYTES.${which}`,
});

const lookupsOf = (product: Product) => product.lookups?.routes ?? [];

/** One row per batch route of every registered product. */
function batchLimits(): CustomerLimit[] {
  return registeredProducts().flatMap((product) =>
    lookupsOf(product)
      .filter((route) => route.kind === "batch" && route.request.json)
      .map((route) => {
        const json = route.request.json as z.ZodType;
        const { list } = listField(json);
        const max = maxItems(list)!;
        const hops: Hop[] = [
          bodyReader(plainBytes(json), "json"),
          {
            name: "values in the account object's call (RPC)",
            ceiling: CLOUDFLARE_LIMITS.rpcBytes,
            unit: "bytes",
            load: plainBytes(list),
            chunked: false,
            where: "src/platform/cloudflare-limits.ts rpcBytes",
          },
        ];
        if (product.name === "email")
          hops.push(
            ...mailboxHops(max, {
              name: "shared mailbox answers: one queue message",
              ceiling: CLOUDFLARE_LIMITS.queueMessageBytes,
              where: "src/platform/cloudflare-limits.ts queueMessageBytes",
            }),
          );
        return {
          limit: `POST /api/v1${route.path} items`,
          customerMax: max,
          unit: "items" as const,
          where: `src/products/${product.name}/declarations.ts (the route's request schema)`,
          hops,
          tests: [`${BEHAVIOUR} › POST /api/v1${route.path} takes ${max} items and refuses ${max + 1}`],
        };
      }),
  );
}

/** The alert mail of a run where every entry changed `fields` fields (one is the least a changed entry lists). */
function alertMailBytes(product: Product, entries: number, fields: number): number {
  const identifier = "x".repeat(Math.min(plainBytes(product.input) - 2, SIDECAR_LIMITS.addressLength));
  const change = { field: "deliverable", from: "deliverable", to: "undeliverable" };
  // `feedback` has the longest words of the reasons a mail spells out.
  const changes = Array.from({ length: entries }, () => ({
    identifier,
    changes: Array(fields).fill(change),
    reason: "feedback",
  }));
  const summary = { checked: entries, changed: entries, credits_used: entries, stopped_reason: null };
  const link = `https://api.example.com/dashboard/monitors#monitor-${product.name}-${Number.MAX_SAFE_INTEGER}`;
  const monitor = { id: Number.MAX_SAFE_INTEGER, name: "x".repeat(100) };
  const bodies = alertBodies({ family: product.name, link }, monitor, summary as never, changes as never);
  const to = `${"x".repeat(64)}@${"x".repeat(189)}`;
  const mime = composeMime({ messageId: "x", from: "Mail <mail@example.com>", to, ...bodies, unsubscribeUrl: link });
  return new TextEncoder().encode(mime).byteLength;
}

/**
 * Statements `recordRun` (src/engines/monitors/store.ts) batches for a run of `entries`: the monitor, the baselines
 * `BASELINES_PER_STATEMENT` a statement, the run, the prune (a statement per baseline made a 1,000-entry run 1,003).
 */
const recordRunStatements = (entries: number) => 3 + Math.ceil(entries / BASELINES_PER_STATEMENT);

/** One row per monitor family (email's domain monitors too). */
function monitorLimits(): CustomerLimit[] {
  return registeredProducts()
    .flatMap((product) => [product, ...(product.companions ?? [])])
    .filter((product) => product.monitor)
    .map((product) => {
      const { shape, create, list } = monitorRequest(product);
      const max = shape.maxEntries;
      const family = shape.family ?? product.name;
      const path = `/api/v1/${product.name}/${shape.path ?? "monitors"}`;
      const hops: Hop[] = [
        bodyReader(plainBytes(create), "json"),
        {
          name: "the list in its monitors row (D1 value)",
          ceiling: CLOUDFLARE_LIMITS.d1ValueBytes,
          unit: "bytes",
          load: plainBytes(list),
          chunked: false,
          where: "src/platform/cloudflare-limits.ts d1ValueBytes",
        },
        {
          name: "statements recording a run (one D1 batch: baselines, run, monitor, prune)",
          ceiling: CLOUDFLARE_LIMITS.d1QueriesPerInvocation,
          unit: "statements",
          load: recordRunStatements(max),
          chunked: false,
          where: "src/platform/cloudflare-limits.ts d1QueriesPerInvocation",
        },
        ...[1, 10].map((fields) => ({
          name: `a run's alert mail, ${fields === 1 ? "one change" : `${fields} changes`} an entry (POST /v1/submit)`,
          ceiling: MAX_SUBMIT_BYTES,
          unit: "bytes" as const,
          load: alertMailBytes(product, max, fields),
          chunked: false,
          where: "workers/smtp-sidecar/submit.mjs MAX_SUBMIT_BYTES",
        })),
      ];
      if (product.name === "email" && family === "email")
        hops.push(
          ...mailboxHops(max, {
            name: "a run's shared mailbox answers: one bound D1 value",
            ceiling: CLOUDFLARE_LIMITS.d1ValueBytes,
            where: "src/platform/cloudflare-limits.ts d1ValueBytes",
          }),
        );
      return {
        limit: `${family} monitor entries`,
        customerMax: max,
        unit: "items" as const,
        where: `the product's monitor shape (maxEntries), src/engines/monitors/request.ts`,
        hops,
        tests: [`${BEHAVIOUR} › POST ${path} takes ${max} entries and refuses ${max + 1}`],
      };
    });
}

/** One row per product with bulk runs, and one for the dashboard's file upload. */
function bulkLimits(): CustomerLimit[] {
  const offsets = Math.ceil(MAX_BULK_ROWS / CHUNK_ENTRIES) + 1;
  const rows = registeredProducts()
    .filter((product) => product.bulk)
    .map((product): CustomerLimit => {
      const hops: Hop[] = [
        bodyReader(plainBytes(createBody(product)), "bulk"),
        {
          name: "rows per queue step (bulk chunk)",
          ceiling: CHUNK_ENTRIES,
          unit: "items",
          load: MAX_BULK_ROWS,
          chunked: true,
          where: "src/engines/bulk/jobs.ts CHUNK_ENTRIES",
        },
        {
          name: "chunk offsets in the job's row (D1 value)",
          ceiling: CLOUDFLARE_LIMITS.d1ValueBytes,
          unit: "bytes",
          load: offsets * (String(BODY_BYTES.bulk).length + 1),
          chunked: false,
          where: "src/platform/cloudflare-limits.ts d1ValueBytes",
        },
      ];
      if (product.name === "email")
        hops.push(
          ...mailboxHops(CHUNK_ENTRIES, {
            name: "a chunk's shared mailbox answers: one bound D1 value",
            ceiling: CLOUDFLARE_LIMITS.d1ValueBytes,
            where: "src/platform/cloudflare-limits.ts d1ValueBytes",
          }),
        );
      return {
        limit: `POST /api/v1/${product.name}/bulk rows`,
        customerMax: MAX_BULK_ROWS,
        unit: "items",
        where: "src/surfaces/bulk-acts.ts MAX_BULK_ROWS",
        hops,
        tests: [`${BEHAVIOUR} › POST /api/v1/${product.name}/bulk refuses ${MAX_BULK_ROWS + 1} rows`],
      };
    });
  const upload: CustomerLimit = {
    limit: "dashboard bulk upload file",
    customerMax: UPLOAD_MAX_BYTES,
    unit: "bytes",
    where: "src/surfaces/dashboard/bulk-upload.ts UPLOAD_MAX_BYTES",
    hops: [
      // The file's rows travel on as a JSON list to the API route: each row gains its quotes and a comma.
      bodyReader(UPLOAD_MAX_BYTES + 3 * MAX_BULK_ROWS + 4096, "bulk"),
    ],
    // No test sends a 16 MiB file yet (docs/architecture.md, "Limits across hops", says so).
    tests: [],
  };
  return [...rows, upload];
}

function webhookLimit(): CustomerLimit {
  const max = MAX_WEBHOOK_BODY_BYTES;
  return {
    limit: "webhook body",
    customerMax: max,
    unit: "bytes",
    where: "src/platform/webhooks.ts MAX_WEBHOOK_BODY_BYTES",
    hops: [
      {
        name: "body kept in the outbox row (over it: R2)",
        ceiling: INLINE_BODY_BYTES,
        unit: "bytes",
        load: max,
        chunked: true,
        where: "src/engines/webhooks/body-store.ts INLINE_BODY_BYTES",
      },
      {
        name: "body relayed by POST /v1/deliver",
        ceiling: MAX_DELIVER_BODY_BYTES,
        unit: "bytes",
        load: max,
        chunked: false,
        where: "workers/smtp-sidecar/deliver.mjs MAX_DELIVER_BODY_BYTES",
      },
      {
        // A JSON body inside a JSON string: quotes and backslashes double; plus the URL (2,048) and headers.
        name: "POST /v1/deliver request (the body escaped)",
        ceiling: MAX_DELIVER_REQUEST_BYTES,
        unit: "bytes",
        load: 2 * max + 2 * 2048 + 4096,
        chunked: false,
        where: "workers/smtp-sidecar/deliver.mjs MAX_DELIVER_REQUEST_BYTES",
      },
    ],
    tests: [
      "test/engines/webhooks/webhook-size.test.ts › fails a body over 8 MiB at once, saying so, without sending it " +
        "or retrying",
      "workers/smtp-sidecar/test/deliver-size.test.mjs › delivers a body of exactly the limit, all quotes (the " +
        "request twice its size), byte for byte",
    ],
  };
}

function mailLimit(): CustomerLimit {
  const max = MAX_SUBMIT_BYTES;
  return {
    limit: "mail message",
    customerMax: max,
    unit: "bytes",
    where: "workers/smtp-sidecar/submit.mjs MAX_SUBMIT_BYTES",
    hops: [
      {
        name: "the frozen message in its mail_messages row (D1 value)",
        ceiling: CLOUDFLARE_LIMITS.d1ValueBytes,
        unit: "bytes",
        load: max,
        chunked: false,
        where: "src/platform/cloudflare-limits.ts d1ValueBytes",
      },
      {
        // CR LF escapes to four bytes: at most twice the message, plus two addresses.
        name: "POST /v1/submit request (the message escaped)",
        ceiling: MAX_SUBMIT_REQUEST_BYTES,
        unit: "bytes",
        load: 2 * max + 2 * 256 + 256,
        chunked: false,
        where: "workers/smtp-sidecar/submit.mjs MAX_SUBMIT_REQUEST_BYTES",
      },
    ],
    tests: [
      "workers/smtp-sidecar/test/submit.test.mjs › submits a message of exactly the limit (its request larger) and " +
        "refuses one byte more for good",
    ],
  };
}

/**
 * Ceilings below their load that this table found and that are not lifted yet, by `limit › hop`. The test insists
 * each still is below (so lifting one removes its line here) and that no other hop is.
 */
const BULK_BODY =
  "100,000 rows at every field's maximum length outgrow the 32 MiB body, which refuses them with an honest 422 " +
  '(docs/api-decisions.md, "Request bodies"); a larger body does not fit a Worker\'s 128 MB memory once parsed';
export const KNOWN_DEFECTS: Record<string, string> = {
  "POST /api/v1/address/bulk rows › request body reader (bulk)": BULK_BODY,
  "POST /api/v1/consistency/bulk rows › request body reader (bulk)": BULK_BODY,
};

/** The whole table, in the order docs/architecture.md lists it. */
export const customerLimits = (): CustomerLimit[] =>
  [...batchLimits(), ...monitorLimits(), ...bulkLimits(), webhookLimit(), mailLimit()].map((row) => ({
    ...row,
    hops: row.hops.map((hop) => {
      const defect = KNOWN_DEFECTS[`${row.limit} › ${hop.name}`];
      return defect ? { ...hop, defect } : hop;
    }),
  }));
