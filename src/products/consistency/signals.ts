import type { Product, ProductContext, WalkOptions } from "../../engines/product";
import { address } from "../address/product";
import type { AddressResult } from "../address/result";
import { emailConfig } from "../email/config";
import { email } from "../email/product";
import { lookupAddresses, type MailboxProber } from "../email/lookup";
import type { EmailResult } from "../email/result";
import { entity } from "../entity/product";
import type { EntityResult } from "../entity/result";
import { ip } from "../ip/product";
import type { IpResult } from "../ip/result";
import { phone } from "../phone/product";
import type { PhoneResult } from "../phone/result";
import { consistencyAnswer } from "./answer";
import { SIGNAL_NAMES, type ConsistencyInput, type ConsistencyResult, type SignalName, type Signals } from "./result";
import { CCTLD_SOURCE, tldCountry } from "./tld";

/** Each signal's answer, as its own product gives it. */
export interface SignalAnswers {
  email?: EmailResult;
  phone?: PhoneResult;
  ip?: IpResult;
  address?: AddressResult;
  entity?: EntityResult;
}

type Value<K extends SignalName> = NonNullable<ConsistencyInput[K]>;
type Answer<K extends SignalName> = NonNullable<SignalAnswers[K]>;

/** The signals' own repeat windows and suppression lists play no part: a consistency call is billed as one answer. */
const SIGNAL_OPTIONS: WalkOptions = { refresh: false, maxAgeSeconds: null, honorSuppressions: false, extra: {} };

/** A prober that opens no SMTP session: every address it is asked about comes back unanswered. */
const noHandshake: MailboxProber = async () => ({ mxHost: null, catchAll: null, checkedAt: new Date().toISOString(), results: [] });

/** A product's answers by its own functions: its local answers (test values, malformed), the rest in one lookup. */
async function answered<In, Out>(product: Product<In, Out>, ctx: ProductContext, values: In[]): Promise<Out[]> {
  if (!values.length) return [];
  const locals = await Promise.all(values.map((value) => product.local?.(value) ?? null));
  const open = values.filter((_, i) => !locals[i]);
  const looked = open.length ? await product.lookup(ctx, open, SIGNAL_OPTIONS) : [];
  let n = 0;
  return locals.map((local) => local?.result ?? looked[n++]!.result);
}

/** How each signal is answered: email by its pipeline without the mailbox handshake, the rest by their products. */
const LOOKUPS: { [K in SignalName]: (ctx: ProductContext, values: Value<K>[]) => Promise<Answer<K>[]> } = {
  email: async (ctx, values) => (values.length ? (await lookupAddresses(emailConfig(ctx.env).dns, noHandshake, values.map((input) => ({ input })))).map((a) => a.result) : []),
  phone: (ctx, values) => answered(phone, ctx, values),
  ip: (ctx, values) => answered(ip, ctx, values),
  address: (ctx, values) => answered(address, ctx, values),
  entity: (ctx, values) => answered(entity, ctx, values),
};

/** The local answer of one signal (test value, malformed), or null when its product must look it up. */
const LOCALS: { [K in SignalName]: (value: Value<K>) => Promise<{ result: Answer<K>; test: boolean } | null> } = {
  email: (value) => email.local!(value),
  phone: (value) => phone.local!(value),
  ip: (value) => ip.local!(value),
  address: (value) => address.local!(value),
  entity: async () => null,
};

const givenSignals = (input: ConsistencyInput) => SIGNAL_NAMES.filter((name) => input[name] != null);

/** The fields of each answer the checks read; a field a signal could not establish is null. */
export function signalsOf(a: SignalAnswers): Signals {
  const { email: e, phone: p, ip: i, address: ad, entity: en } = a;
  return {
    email: e ? { email: e.email, valid: e.syntax_valid, domain: e.syntax_valid ? e.domain : null, tld_country: e.syntax_valid ? tldCountry(e.domain) : null, free_provider: e.free_provider, disposable: e.disposable } : null,
    phone: p ? { phone: p.phone, valid: p.valid, e164: p.e164, country: p.valid ? p.country : null } : null,
    ip: i ? { ip: i.ip, valid: i.valid, reserved: i.reserved, placed: i.placed, country: i.country, anonymous: i.anonymous, tor: i.tor, hosting: i.hosting } : null,
    address: ad
      ? { country: ad.country, country_supported: ad.reason !== "unsupported_country", postcode: ad.address.postcode, locality: ad.address.locality, postcode_found: ad.postcode_found, locality_matches_postcode: ad.locality_matches_postcode }
      : null,
    entity: en ? { identifier: en.identifier, found: en.found, name: en.found ? en.name : null, country: en.found ? en.country : null } : null,
  };
}

/** The answer from the signals' answers: the union of their sources, plus the ccTLD table when an email was read. */
export function answerFrom(a: SignalAnswers): ConsistencyResult {
  const sources = [a.email, a.phone, a.ip, a.address, a.entity].flatMap((answer) => answer?.sources ?? []);
  return consistencyAnswer(signalsOf(a), a.email?.syntax_valid ? [...sources, CCTLD_SOURCE] : sources);
}

/** Every signal of every input looked up by its own product, all products at once (one lookup per product per list). */
export async function lookupConsistency(ctx: ProductContext, inputs: ConsistencyInput[]): Promise<ConsistencyResult[]> {
  const answers: SignalAnswers[] = inputs.map(() => ({}));
  await Promise.all(
    SIGNAL_NAMES.map(async <K extends SignalName>(name: K) => {
      const asked = inputs.flatMap((input, i) => (input[name] != null ? [{ i, value: input[name] as Value<K> }] : []));
      const results = await (LOOKUPS[name] as (ctx: ProductContext, values: Value<K>[]) => Promise<Answer<K>[]>)(ctx, asked.map((x) => x.value));
      asked.forEach(({ i }, n) => ((answers[i] as Record<K, Answer<K>>)[name] = results[n]!));
    }),
  );
  return answers.map(answerFrom);
}

/**
 * The answer when every signal is answered without a dataset (test values, malformed values), else null. It is a test
 * answer when every signal is a test value.
 */
export async function localConsistency(input: ConsistencyInput): Promise<{ result: ConsistencyResult; test: boolean } | null> {
  const names = givenSignals(input);
  const locals = await Promise.all(names.map((name) => (LOCALS[name] as (value: unknown) => Promise<{ result: unknown; test: boolean } | null>)(input[name])));
  if (locals.some((local) => !local)) return null;
  const answers = Object.fromEntries(names.map((name, i) => [name, locals[i]!.result])) as SignalAnswers;
  return { result: answerFrom(answers), test: locals.every((local) => local!.test) };
}

/** The repeat and dedupe key: each given signal's own key, in a fixed order. */
export function consistencyKey(input: ConsistencyInput): string {
  const keys: { [K in SignalName]: (value: Value<K>) => string } = {
    email: email.normalize,
    phone: phone.normalize,
    ip: ip.normalize,
    address: address.normalize,
    entity: entity.normalize,
  };
  return givenSignals(input)
    .map((name) => `${name}=${(keys[name] as (value: unknown) => string)(input[name])}`)
    .join("\n");
}

/** A sandbox sample: every signal is one of its product's samples. */
export const isSampleSet = (input: ConsistencyInput) => {
  const samples: { [K in SignalName]: (value: Value<K>) => boolean } = { email: email.isSample, phone: phone.isSample, ip: ip.isSample, address: address.isSample, entity: entity.isSample };
  return givenSignals(input).every((name) => (samples[name] as (value: unknown) => boolean)(input[name]));
};
