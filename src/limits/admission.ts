import type { AdmissionRequest, Entered, LimitHit } from "../../durable-objects/account-object";
import { LIMITS, type LimitName } from "./limiter";

/** One rate limit of the account's object, for `subject` (a key id, a visitor, a user). */
export const limitHit = (name: LimitName, subject: string): LimitHit => ({
  name,
  subject,
  limit: LIMITS[name].limit,
  windowMs: LIMITS[name].windowMs,
});

/** A rate limit's refusal as a value: when asking again can succeed. */
export interface RateLimitRefusal {
  message: string;
  retryAfterSeconds: number;
}

/** What a call to the account's object answered, or the rate limit that refused the request it carried. */
export type Admitted<T> = { value: T } | { limited: RateLimitRefusal };

/**
 * A request's admission by its account's object: the rate limits it counts, carried by the request's first call to
 * that object (the hold, the balance read or the account snapshot), so the request makes one round trip to it before
 * its product work. Taken once; what the object said about the account's policies is kept for the walk.
 */
export class Admission {
  private hits: LimitHit[] | null;
  /**
   * The account's policy versions as the admitting call answered them (null until admitted, or when admitted
   * elsewhere).
   */
  policies: Record<string, number> | null = null;

  constructor(
    readonly accountId: string,
    hits: LimitHit[],
    private readonly record: AdmissionRequest["request"],
  ) {
    this.hits = hits;
  }

  /** Another limit this request counts (a route's own, known once its input is valid); only before it is taken. */
  add(...hits: LimitHit[]): void {
    if (this.hits === null) throw new Error("the request was already admitted");
    this.hits.push(...hits);
  }

  get pending(): boolean {
    return this.hits !== null;
  }

  /** What the next call carries; null once taken. */
  take(): AdmissionRequest | null {
    const hits = this.hits;
    this.hits = null;
    return hits ? { hits, request: this.record } : null;
  }

  /** An `enter*` answer as a value: what was asked, or the rate limit that refused it. */
  outcome<T>(entered: Entered<T>): Admitted<T> {
    if (!entered.admitted) {
      const message = LIMITS[entered.limit as LimitName]?.message ?? "Too many requests; retry later.";
      return { limited: { message, retryAfterSeconds: entered.retryAfterSeconds } };
    }
    this.policies = entered.policies;
    return { value: entered.value };
  }
}

/**
 * One webhook redelivery of a person (spec: 10 a minute, shared across their keys, every product and the dashboard
 * button): the subject is the signed-in user (a key's holder), or a key with no holder as its own user.
 */
export const redeliveryHit = (person: string): LimitHit => limitHit("redeliveryUser", person);
