/**
 * What a product declares to get delivery feedback from the engines (`POST /{product}/feedback`, the summary, and the
 * senders' inbound webhooks `POST /{product}/feedback/{provider}/{fb_key}`).
 */

/** One delivery outcome for a value, normalized from a sender's event or posted by the account. */
export interface FeedbackEvent<In> {
  value: In;
  outcome: string;
  /** The outcome's finer kind where the product has one (email bounces: `hard`, `soft`). */
  kind: string | null;
  /** When the sender saw it (Unix ms), when it says. */
  occurredAt: number | null;
  /** The sender's own fields worth keeping for audit (event type, status code, diagnostic). */
  detail: Record<string, unknown>;
}

/** What one sender's request held. */
export interface ProviderBatch<In> {
  events: FeedbackEvent<In>[];
  /** Events of types that say nothing about delivery (opens, clicks, unsubscribes): counted, not recorded. */
  ignored: number;
  /** The sender asked to confirm this URL (Amazon SNS) and the confirmation was made. */
  confirmed?: boolean;
  /** The body is this sender's format but cannot be acted on (a confirmation URL that is not the sender's): a 422. */
  invalid?: string;
}

/** The raw request as the sender posted it. */
export interface InboundRequest {
  headers: Headers;
  body: string;
}

/** Parses one sender's documented webhook format; null when the body is not that format at all. */
export type FeedbackProvider<In> = (env: Env, request: InboundRequest) => Promise<ProviderBatch<In> | null>;

export interface FeedbackShape<In, Out> {
  /** The field naming the value in a posted event (`email`). */
  valueField: string;
  /** Normalized outcomes, the first being the good one (`delivered`). */
  outcomes: readonly [string, ...string[]];
  /** Outcomes with finer kinds: the body field, and each outcome's kinds (the first is the default). */
  kinds?: { field: string; of: Readonly<Partial<Record<string, readonly [string, ...string[]]>>> };
  /** What the summary groups by besides the outcome (`domain`). */
  facet: string;
  /** A value's key (as the walk keys it) and facet; null when it is malformed, which is not recorded. */
  read(input: In): { key: string; facet: string } | null;
  /**
   * Facets only a dataset knows (IP: the AS announcing the address), for the recorded keys in order; they replace what
   * `read` gave. One call per request, so a product reads its dataset once for all events.
   */
  facets?(env: Env, keys: string[]): Promise<string[]>;
  /**
   * Outcomes that put the value on the suppression list (email: a hard bounce, a complaint), with the answer later
   * batch, bulk and monitor answers give for it; that answer cites `delivery-feedback` in `sources`. A product without
   * it reads the feedback into its own answers instead (IP: `latestFeedbackStatement`).
   */
  suppresses?(event: FeedbackEvent<In>, key: string): { reason: string; result: Out } | null;
  /** Sender name (the URL's `{provider}`) -> its parser; none: no inbound route is mounted. */
  providers: Readonly<Record<string, FeedbackProvider<In>>>;
}

/** The latest outcome recorded for a key, and when (Unix ms). */
export interface LatestFeedback {
  outcome: string;
  kind: string | null;
  at: number;
}
