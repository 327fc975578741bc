import { admitPending } from "../../limits/admit";
import type { Product } from "../../engines/product";
import { fieldErrors } from "../../http/validation";
import { monitoredProduct, productNamed } from "../../products/registry";
import { bulkResults, createBody, startBulk } from "../bulk-acts";
import type { ActOutcome, KeyAct } from "../key-act";
import { answerToolCall, keyActOf, toolCallId, type Caller, type ToolAnswer } from "./call";

/** The product (or monitor family) a tool's `product` or `monitor_kind` argument names. */
export function productOf(name: unknown): Product {
  const product = productNamed(String(name)) ?? monitoredProduct(String(name));
  if (!product) throw new Error(`no product ${String(name)}`);
  return product;
}

/** An engine tool: the API route it stands for (its request record's), and the engine act it runs. */
interface EngineCall {
  method: "GET" | "POST";
  /** Under /api/v1, as the request record shows it. */
  path: (args: Record<string, unknown>) => string;
  /** The act's first call to the account's object counts the rate limit (the route's `admitOnFirstCall`). */
  firstCallCounts?: boolean;
  act: (act: KeyAct, args: Record<string, unknown>) => Promise<ActOutcome>;
}

/**
 * Runs an engine act for a tool call, as its REST route does: the /mcp request's rate limit counted first (or by the
 * act's first call to the account's object), the call under its own request id and request record.
 */
export const engineInvoke =
  (call: EngineCall) =>
  async (args: Record<string, unknown>, caller: Caller): Promise<ToolAnswer> => {
    const requestId = toolCallId(caller);
    const firstCallCounts = call.firstCallCounts === true;
    const limited = firstCallCounts ? null : await admitPending(caller.c.env, caller.c.var.admission);
    const outcome = limited
      ? { ok: false as const, error: limited }
      : await call.act(keyActOf(caller, firstCallCounts), args);
    return answerToolCall(caller, { requestId, method: call.method, path: call.path(args), outcome });
  };

/** start_bulk_run's arguments as the product's create body, checked by the API's own schema. */
export async function startFromTool(act: KeyAct, args: Record<string, unknown>): Promise<ActOutcome> {
  const { product: name, values, max_credits: _max, ...rest } = args;
  const product = productOf(name);
  const parsed = createBody(product).safeParse({ ...rest, [product.bulk!.field]: values });
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error, "arguments");
    return { ok: false, error: { code: "VALIDATION_FAILED", message: "The request has invalid fields.", errors } };
  }
  return startBulk(act, product, { body: parsed.data, idempotencyKey: null });
}

/** get_bulk_results: the CSV read whole into `data.csv`. */
export async function resultsForTool(act: KeyAct, args: Record<string, unknown>): Promise<ActOutcome> {
  const product = productOf(args.product);
  const variant = args.variant === undefined ? undefined : String(args.variant);
  if (variant !== undefined && !(product.bulk!.counters as string[]).includes(variant)) {
    const errors = { variant: [`One of ${product.bulk!.counters.join(", ")}.`] };
    return { ok: false, error: { code: "VALIDATION_FAILED", message: "The request has invalid fields.", errors } };
  }
  const results = await bulkResults(act, product, { jobId: Number(args.job_id), variant });
  if (!results.ok) return results;
  return { ok: true, data: { csv: await new Response(results.data.body).text() }, meta: {} };
}
