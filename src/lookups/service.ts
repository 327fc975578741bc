import { payerOf } from "../engines/credits/payer";
import type { WalkOptions, WalkProduct } from "../engines/product";
import { walk, type WalkRun } from "../engines/walk/walk";
import type { Admission } from "../limits/admission";
import type { Principal } from "../types";
import { keyRefusal, refusalOf, type Refusal } from "./refusal";

export { quote, readInputs, type Quote, type QuoteRequest } from "./quote";

/** Who asks, as every surface knows it once the key is checked. */
export interface LookupCaller {
  env: Env;
  /** The checked key: secret (with scopes), publishable (browser lookups) or the sandbox key (samples only). */
  principal: Principal;
  /** The request's pending rate limits, counted by its first call to the account's object (absent: none left). */
  admission?: Admission;
  /** Ledger and history id of the answers (the HTTP request id, a tool call's id). */
  requestId: string;
  /** The request's `waitUntil`: settling and list writes then happen after the answer (src/engines/walk/walk.ts). */
  defer?: (work: () => Promise<unknown>) => void;
}

/**
 * What the walk answered: items in input order up to where it stopped (`{index, input, data, meta}`), `requested`,
 * `processed`, `creditsUsed`, `creditsRemaining`, `stoppedReason`, and `prepaid` (IP's placing lookups left, else
 * null).
 */
export type LookupAnswer<In, Out> = Omit<WalkRun<In, Out>, "refused" | "rateLimited">;

export type LookupOutcome<In, Out> = { ok: true; answer: LookupAnswer<In, Out> } | { ok: false; refusal: Refusal };

const DEFAULT_OPTIONS: WalkOptions = { refresh: false, maxAgeSeconds: null, honorSuppressions: false, extra: {} };

/**
 * The one lookup service: a principal looks up `inputs` of `product`, with the same keys, limits, billing, repeats and
 * policy on every surface. Refusals (scope, sandbox value, rate limit, balance, the key's daily cap) come back as
 * values and nothing is held or charged for them; answers come back with what they cost. Validation of the request is
 * the surface's (it knows its own field names).
 */
export async function serveLookup<In, Out>(
  caller: LookupCaller,
  product: WalkProduct<In, Out>,
  inputs: In[],
  options: Partial<WalkOptions> = {},
): Promise<LookupOutcome<In, Out>> {
  const { principal } = caller;
  const before = keyRefusal(principal, product, inputs);
  if (before) return refused(before);
  const run = await walk(product, {
    env: caller.env,
    payer: payerOf(principal, caller.admission),
    requestId: caller.requestId,
    inputs,
    options: { ...DEFAULT_OPTIONS, ...options },
    ...(caller.defer ? { defer: caller.defer } : {}),
  });
  if (run.rateLimited) {
    const { message, retryAfterSeconds } = run.rateLimited;
    return refused({ code: "RATE_LIMITED", message, retryAfterSeconds });
  }
  if (run.refused) return refused(refusalOf(run.refused));
  const { refused: _none, rateLimited: _no, ...answer } = run;
  return { ok: true, answer };
}

const refused = (refusal: Refusal) => ({ ok: false as const, refusal });
