import { z } from "zod";
import { toolNameOf } from "../../http/operation-ids";
import { readInputs } from "../../lookups/quote";
import { readAccount, readLedger } from "../account-reads";
import { pollBulk } from "../bulk-acts";
import { listMonitors, readMonitor, runMonitorNow } from "../monitor-acts";
import { catalog, keyActOf } from "./call";
import { engineInvoke, productOf, resultsForTool, startFromTool } from "./engine-call";
import { maxCredits } from "./lookup-tools";
import { docOf, Refusal, walkOptions, type Routes, type ToolSpec } from "./tool";

/** A list's values read into the inputs of the product (or monitor family) it belongs to, for the service's quote. */
function priced(name: string, values: unknown[], extra: Record<string, unknown>) {
  const product = productOf(name);
  return { product, ...readInputs(product, values, extra) };
}

const enumOf = (values: string[]) => z.enum(values as [string, ...string[]]);
const unionOf = (schemas: z.ZodType[]) =>
  schemas.length === 1 ? schemas[0]! : z.union(schemas as [z.ZodType, z.ZodType, ...z.ZodType[]]);
const bodyShape = (schema: z.ZodType | undefined) =>
  schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};

/** Bulk runs of every product that has them, one set of tools with `product` as an argument. */
function bulkTools(routes: Routes): ToolSpec[] {
  const bulk = catalog().bulk;
  const product = enumOf(bulk.map((b) => b.product)).describe("Which product's bulk run");
  const creates = bulk.map((b) => ({ ...b, doc: docOf(routes, "POST", `/${b.product}/bulk`) }));
  const polls = bulk.map((b) => docOf(routes, "GET", `/${b.product}/bulk/:jobId`));
  // Each product's own run options (email's `timeout`, address's `country`), all optional: a product ignores the
  // others'.
  const options: Record<string, z.ZodType> = {};
  for (const { doc, field } of creates)
    for (const [name, schema] of Object.entries(bodyShape(doc.body))) if (name !== field) options[name] = schema;
  const items = creates.map(({ doc, field }) => (bodyShape(doc.body)[field] as z.ZodArray).element as z.ZodType);
  const jobId = z.int().min(1).describe("The run's id (data.job.id of start_bulk_run)");
  return [
    {
      name: "start_bulk_run",
      title: "Start a bulk run",
      description:
        "Queues a list of up to 100,000 values (each as that product's single lookup takes it) and answers at once " +
        "with the job; poll get_bulk_run, then read get_bulk_results. Billed per answer as the product's lookups " +
        "(repeats, duplicates and test values free); a run that runs out of credits stops with stopped_reason " +
        "`insufficient_credits` and keeps what it answered. Use quote first for a list of unknown cost.",
      readOnly: false,
      openWorld: true,
      input: z.object({
        product,
        values: z.array(unionOf(items)).min(1).max(100_000),
        ...options,
        max_credits: maxCredits,
      }),
      data: unionOf(creates.map(({ doc }) => doc.response ?? z.object({}))),
      meta: z.object({}),
      invoke: engineInvoke({
        method: "POST",
        path: (args) => `/${String(args.product)}/bulk`,
        act: startFromTool,
      }),
      cost: async (args) => {
        const options = walkOptions(args, true, { country: args.country, timeout: args.timeout });
        return { ...priced(String(args.product), args.values as unknown[], options.extra), options };
      },
    },
    {
      name: "get_bulk_run",
      title: "Poll a bulk run",
      description:
        "The run's status (`queued`, `running`, `completed`, `cancelled`, `failed`), rows processed, counts per " +
        "verdict, credits used and stopped_reason. Free.",
      readOnly: true,
      openWorld: false,
      input: z.object({ product, job_id: jobId }),
      data: unionOf(polls.map((doc) => doc.response ?? z.object({}))),
      meta: z.object({}),
      invoke: engineInvoke({
        method: "GET",
        path: (args) => `/${String(args.product)}/bulk/${Number(args.job_id)}`,
        act: (act, args) => pollBulk(act, productOf(args.product), Number(args.job_id)),
      }),
    },
    {
      name: "get_bulk_results",
      title: "Read a bulk run's results",
      description:
        "The finished run's rows as CSV (`data.csv`: index, input, the product's columns, credits_used, suppressed), " +
        "optionally only one verdict (`variant`, e.g. `deliverable`). Kept 30 days. Free; RESULTS_NOT_READY while " +
        "the run is queued or running.",
      readOnly: true,
      openWorld: false,
      input: z.object({
        product,
        job_id: jobId,
        variant: z.string().optional().describe("Only rows of this counter (the job's counts name them)"),
      }),
      data: z.object({ csv: z.string() }),
      meta: z.object({}),
      invoke: engineInvoke({
        method: "GET",
        path: (args) => `/${String(args.product)}/bulk/${Number(args.job_id)}/results`,
        act: resultsForTool,
      }),
    },
  ];
}

/** Monitors of every kind (a product's own, and email's domain monitors), `monitor_kind` as an argument. */
function monitorTools(routes: Routes): ToolSpec[] {
  const kinds = catalog().monitors;
  const kind = enumOf(kinds.map((k) => k.kind)).describe(
    "Which kind of monitor (email_domain: email's domain monitors)",
  );
  const mount = (name: unknown) => kinds.find((k) => k.kind === name)!;
  const lists = kinds.map((k) => docOf(routes, "GET", k.base));
  const runs = kinds.map((k) => docOf(routes, "POST", `${k.base}/:monitorId/run`));
  return [
    {
      name: "list_monitors",
      title: "List monitors",
      description:
        "The account's monitors of one kind, newest first, 100 a page: saved lists re-checked weekly or monthly, " +
        "with their last run's summary. Free.",
      readOnly: true,
      openWorld: false,
      input: z.object({ monitor_kind: kind, page: z.int().min(1).optional() }),
      data: unionOf(lists.map((doc) => doc.response ?? z.object({}))),
      meta: z.object({ page: z.int(), per_page: z.int(), total: z.int() }),
      invoke: engineInvoke({
        method: "GET",
        path: (args) => mount(args.monitor_kind).base,
        act: (act, args) => listMonitors(act, productOf(args.monitor_kind), Number(args.page ?? 1)),
      }),
    },
    {
      name: "run_monitor",
      title: "Run a monitor now",
      description:
        "Re-checks the monitor's whole list now and compares each entry with its baseline; answers the run's summary " +
        "(credits_used, counts) and the changes found. Billed like a batch of its entries (repeats free; with " +
        "refresh every entry is looked up again, billed as fresh); the schedule is unchanged.",
      readOnly: false,
      openWorld: true,
      input: z.object({
        monitor_kind: kind,
        monitor_id: z.int().min(1),
        refresh: z.boolean().optional().describe("Look every entry up again instead of answering recent repeats"),
        max_credits: maxCredits,
      }),
      data: unionOf(runs.map((doc) => doc.response ?? z.object({}))),
      meta: z.object({}),
      invoke: engineInvoke({
        method: "POST",
        path: (args) => `${mount(args.monitor_kind).base}/${Number(args.monitor_id)}/run`,
        act: (act, args) =>
          runMonitorNow(act, productOf(args.monitor_kind), {
            monitorId: Number(args.monitor_id),
            refresh: args.refresh === true,
          }),
      }),
      cost: async (args, caller) => {
        const { listField } = mount(args.monitor_kind);
        const product = productOf(args.monitor_kind);
        const answer = await readMonitor(keyActOf(caller, false), product, Number(args.monitor_id));
        if (!answer.ok) throw new Refusal({ ...answer.error, request_id: caller.c.var.requestId });
        const monitor = (answer.data as { monitor?: Record<string, unknown> }).monitor;
        const options = walkOptions({ refresh: args.refresh }, true);
        const values = (monitor?.[listField] as unknown[] | undefined) ?? [];
        return { ...priced(String(args.monitor_kind), values, options.extra), options };
      },
    },
  ];
}

function accountTools(routes: Routes): ToolSpec[] {
  const account = docOf(routes, "GET", "/account");
  const ledger = docOf(routes, "GET", "/account/ledger");
  return [
    {
      name: toolNameOf(account.operationId),
      title: "Account balance",
      description:
        "The account's balance (plan and pack credits, reserved, available), plan, monthly grant and fair-use " +
        "window. Free; needs the key's `account` scope.",
      readOnly: true,
      openWorld: false,
      input: z.object({}),
      data: account.response ?? z.object({}),
      meta: account.meta ?? z.object({}),
      invoke: engineInvoke({ method: "GET", path: () => "/account", firstCallCounts: true, act: readAccount }),
    },
    {
      name: toolNameOf(ledger.operationId),
      title: "Account ledger",
      description:
        "Every credit movement (grants, purchases, charges with their product, expiries), newest first, 100 a page, " +
        "each with the request id that caused it. Free; needs the `account` scope.",
      readOnly: true,
      openWorld: false,
      input: z.object({ page: z.int().min(1).optional() }),
      data: ledger.response ?? z.object({}),
      meta: ledger.meta ?? z.object({}),
      invoke: engineInvoke({
        method: "GET",
        path: () => "/account/ledger",
        firstCallCounts: true,
        act: (act, args) => readLedger(act, Number(args.page ?? 1)),
      }),
    },
  ];
}

export const engineTools = (routes: Routes): ToolSpec[] => [
  ...accountTools(routes),
  ...bulkTools(routes),
  ...monitorTools(routes),
];
