import { rateLimited } from "../http/errors";

/**
 * Every request-rate limit of the API (spec, "Limits"); the daily credit cap is money and lives with the credits. Each
 * is `limit` requests per `windowMs` on average with bursts of up to `limit` (GCRA, src/limits/gcra.ts): traffic *over*
 * the rate is refused, a client pacing itself at the rate is not. Limits of an account's keys, visitors and users are
 * counted in the account's object with the request's first call to it (src/limits/admission.ts); only the sandbox,
 * which has no account, has an object of its own per address (`enforceLimit`).
 */
export const LIMITS = {
  key: { limit: 5, windowMs: 1_000, message: "Over 5 requests per second for this key." },
  browserVisitor: { limit: 20, windowMs: 60_000, message: "Over 20 lookups a minute from this visitor." },
  sandboxAddress: { limit: 30, windowMs: 60_000, message: "Over 30 sandbox requests a minute from this address." },
  redeliveryUser: { limit: 10, windowMs: 60_000, message: "Over 10 webhook redeliveries a minute." },
  requestLookupUser: { limit: 30, windowMs: 60_000, message: "Over 30 request lookups a minute." },
  testWebhookKey: { limit: 10, windowMs: 60_000, message: "Over 10 test webhooks a minute for this key." },
  signInAddress: {
    limit: 10,
    windowMs: 15 * 60_000,
    message: "Over 10 sign-in attempts in 15 minutes from this address.",
  },
  passkeyOptionsAddress: {
    limit: 20,
    windowMs: 15 * 60_000,
    message: "Over 20 passkey sign-in options in 15 minutes from this address.",
  },
  operatorGuesses: {
    limit: 10,
    windowMs: 15 * 60_000,
    message: "Over 10 wrong operator tokens in 15 minutes from this address.",
  },
  invitationsAccount: {
    limit: 20,
    windowMs: 24 * 3_600_000,
    message: "Over 20 invitations a day from this account.",
  },
  invitationsRecipient: {
    limit: 3,
    windowMs: 24 * 3_600_000,
    message: "This address was invited 3 times today already.",
  },
  monitorRunsAccount: {
    limit: 20,
    windowMs: 24 * 3_600_000,
    message: "Over 20 monitor runs asked today for this account (scheduled runs do not count).",
  },
  signInAccount: {
    limit: 5,
    windowMs: 15 * 60_000,
    message: "Over 5 sign-in attempts in 15 minutes for this email address.",
  },
} as const;

export type LimitName = keyof typeof LIMITS;

/** Counts one request against `name` for `subject` in its own object and says whether it is within the limit. */
export async function hitLimit(env: Env, name: LimitName, subject: string) {
  const rule = LIMITS[name];
  return env.LIMITER.get(env.LIMITER.idFromName(`${name}:${subject}`)).hit(rule.limit, rule.windowMs);
}

/**
 * Judges a guess of a secret (`given` and `expected` as digests) in `subject`'s own object under `name`: "refused"
 * unjudged while over the limit, otherwise "right" or "wrong", only a wrong one counting.
 */
export async function judgeGuess(
  env: Env,
  name: LimitName,
  subject: string,
  guess: { given: string; expected: string },
) {
  const rule = LIMITS[name];
  const limiter = env.LIMITER.get(env.LIMITER.idFromName(`${name}:${subject}`));
  return limiter.guess(guess.given, guess.expected, rule.limit, rule.windowMs);
}

/**
 * Counts one request against `name` for `subject` in its own object; throws 429 RATE_LIMITED with Retry-After when
 * over.
 */
export async function enforceLimit(env: Env, name: LimitName, subject: string): Promise<void> {
  const result = await hitLimit(env, name, subject);
  if (!result.allowed) throw rateLimited(result.retryAfterSeconds, LIMITS[name].message);
}
