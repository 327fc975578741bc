import type { ProductContext, WalkOptions } from "../../engines/product";
import type { ConsistencyInput } from "./schemas";
import { consistencyAnswer } from "./answer";
import type {
  AddressAnswer,
  ConsistencyDeps,
  EmailAnswer,
  EntityAnswer,
  IpAnswer,
  PhoneAnswer,
  SignalProduct,
} from "./deps";
import { SIGNAL_NAMES, type ConsistencyResult, type SignalName, type Signals } from "./result";
import { CCTLD_SOURCE, tldCountry } from "./tld";

/** Each signal's answer, as its own product gives it. */
export interface SignalAnswers {
  email?: EmailAnswer;
  phone?: PhoneAnswer;
  ip?: IpAnswer;
  address?: AddressAnswer;
  entity?: EntityAnswer;
}

type Answer<K extends SignalName> = NonNullable<SignalAnswers[K]>;

/** The signals' own repeat windows and suppression lists play no part: a consistency call is billed as one answer. */
const SIGNAL_OPTIONS: WalkOptions = { refresh: false, maxAgeSeconds: null, honorSuppressions: false, extra: {} };

/** Whether the call asked for the phone signal's live network check (`network: true`). */
export const wantsNetwork = (options: WalkOptions) => options.extra.network === true;

/** A product's answers by its own functions: its local answers (test values, malformed), the rest in one lookup. */
async function answered<Out>(
  product: SignalProduct<Out>,
  ctx: ProductContext,
  values: unknown[],
  options = SIGNAL_OPTIONS,
): Promise<Out[]> {
  if (!values.length) return [];
  const locals = await Promise.all(values.map((value) => product.local?.(value) ?? null));
  const open = values.filter((_, i) => !locals[i]);
  const looked = open.length ? await product.lookup(ctx, open, options) : [];
  let n = 0;
  return locals.map((local) => local?.result ?? looked[n++]!.result);
}

const givenSignals = (input: ConsistencyInput) => SIGNAL_NAMES.filter((name) => input[name] != null);

/** The fields of each answer the checks read; a field a signal could not establish is null. */
export function signalsOf(a: SignalAnswers): Signals {
  const { email: e, phone: p, ip: i, address: ad, entity: en } = a;
  return {
    email: e
      ? {
          email: e.email,
          valid: e.syntax_valid,
          domain: e.syntax_valid ? e.domain : null,
          tld_country: e.syntax_valid ? tldCountry(e.domain) : null,
          free_provider: e.free_provider,
          disposable: e.disposable,
        }
      : null,
    phone: p
      ? {
          phone: p.phone,
          valid: p.valid,
          e164: p.e164,
          country: p.valid ? p.country : null,
          line_type: p.line_type,
          line_type_source: p.network_checked ? "network" : "numbering_plan",
        }
      : null,
    ip: i
      ? {
          ip: i.ip,
          valid: i.valid,
          reserved: i.reserved,
          placed: i.placed,
          country: i.country,
          anonymous: i.anonymous,
          tor: i.tor,
          hosting: i.hosting,
        }
      : null,
    address: ad
      ? {
          country: ad.country,
          country_supported: ad.reason !== "unsupported_country",
          postcode: ad.address.postcode,
          locality: ad.address.locality,
          postcode_found: ad.postcode_found,
          locality_matches_postcode: ad.locality_matches_postcode,
        }
      : null,
    entity: en
      ? {
          identifier: en.identifier,
          found: en.found,
          name: en.found ? en.name : null,
          country: en.found ? en.country : null,
        }
      : null,
  };
}

/** The answer from the signals' answers: the union of their sources, plus the ccTLD table when an email was read. */
export function answerFrom(a: SignalAnswers): ConsistencyResult {
  const sources = [a.email, a.phone, a.ip, a.address, a.entity].flatMap((answer) => answer?.sources ?? []);
  const decidedBySample = [a.phone, a.ip, a.address, a.entity].some((answer) => answer?.reason === "sample_data");
  const reason =
    a.phone?.reason === "partner_unavailable" ? "partner_unavailable" : decidedBySample ? "sample_data" : null;
  return consistencyAnswer(signalsOf(a), a.email?.syntax_valid ? [...sources, CCTLD_SOURCE] : sources, reason);
}

/** The product functions of consistency over the products it compares (handed in by the registry). */
export function consistencySignals(deps: ConsistencyDeps) {
  const products = { email: deps.email, phone: deps.phone, ip: deps.ip, address: deps.address, entity: deps.entity };

  /** How each signal is answered: email by its pipeline without the mailbox handshake, the rest by their products. */
  const lookups: {
    [K in SignalName]: (ctx: ProductContext, values: unknown[], options: WalkOptions) => Promise<Answer<K>[]>;
  } = {
    email: (ctx, values) => deps.emailWithoutHandshake(ctx, values as string[]),
    // `network: true` reaches the phone signal only: its partner check, as `POST /phone` would run it.
    phone: (ctx, values, options) =>
      answered(deps.phone, ctx, values, { ...SIGNAL_OPTIONS, extra: { network: wantsNetwork(options) } }),
    ip: (ctx, values) => answered(deps.ip, ctx, values),
    address: (ctx, values) => answered(deps.address, ctx, values),
    entity: (ctx, values) => answered(deps.entity, ctx, values),
  };

  /** The local answer of one signal (test value, malformed), or null when its product must look it up. */
  const local = (name: SignalName, value: unknown): Promise<{ result: unknown; test: boolean } | null> =>
    name === "entity" ? Promise.resolve(null) : products[name].local!(value);

  /**
   * Every signal of every input looked up by its own product, all products at once (one lookup per product per list).
   */
  async function lookupConsistency(
    ctx: ProductContext,
    inputs: ConsistencyInput[],
    options: WalkOptions,
  ): Promise<ConsistencyResult[]> {
    const answers: SignalAnswers[] = inputs.map(() => ({}));
    await Promise.all(
      SIGNAL_NAMES.map(async (name) => {
        const asked = inputs.flatMap((input, i) => (input[name] != null ? [{ i, value: input[name] }] : []));
        const results = await lookups[name](
          ctx,
          asked.map((x) => x.value),
          options,
        );
        asked.forEach(({ i }, n) => ((answers[i] as Record<SignalName, unknown>)[name] = results[n]!));
      }),
    );
    return answers.map(answerFrom);
  }

  /**
   * The answer when every signal is answered without a dataset (test values, malformed values), else null. It is a test
   * answer when every signal is a test value.
   */
  async function localConsistency(
    input: ConsistencyInput,
  ): Promise<{ result: ConsistencyResult; test: boolean } | null> {
    const names = givenSignals(input);
    const locals = await Promise.all(names.map((name) => local(name, input[name])));
    if (locals.some((l) => !l)) return null;
    const answers = Object.fromEntries(names.map((name, i) => [name, locals[i]!.result])) as SignalAnswers;
    return { result: answerFrom(answers), test: locals.every((l) => l!.test) };
  }

  /** The repeat and dedupe key: each given signal's own key, in a fixed order. */
  const consistencyKey = (input: ConsistencyInput): string =>
    givenSignals(input)
      .map((name) => `${name}=${products[name].normalize(input[name])}`)
      .join("\n");

  /** A sandbox sample: every signal is one of its product's samples. */
  const isSampleSet = (input: ConsistencyInput) =>
    givenSignals(input).every((name) => products[name].isSample(input[name]));

  const datasets = [...new Set([...SIGNAL_NAMES.flatMap((name) => products[name].datasets), CCTLD_SOURCE.dataset])];

  return { lookupConsistency, localConsistency, consistencyKey, isSampleSet, datasets };
}
