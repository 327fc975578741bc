/**
 * Receiving the API's webhooks and callbacks: the receiver rules of the `X-Service-Signature-V2` header.
 *
 *   const verify = webhookVerifier({ secret });
 *   // throws when it must not be trusted
 *   const event = await verify(rawBody, request.headers.get("X-Service-Signature-V2"));
 *
 * 1. The header is exactly `t={unix seconds},v2={64 lowercase hex}`.
 * 2. `t` is within `toleranceSeconds` (300) of this clock, either way.
 * 3. `v2` equals HMAC-SHA256(secret, "v2:{t}:{raw body}"), compared in constant time (WebCrypto verify).
 * 4. A delivery already accepted within the window is refused (replay memory, keyed by its signature).
 */

export type WebhookFailure = "malformed_header" | "stale_timestamp" | "bad_signature" | "replayed";

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Remembers accepted deliveries. Several server processes need a shared one (e.g. Redis `SET key NX PX`). */
export interface ReplayStore {
  /** Records `id` until `expiresAt` (ms since epoch); false when it is already recorded and not yet expired. */
  remember(id: string, expiresAt: number): boolean | Promise<boolean>;
}

/** A ReplayStore in this process's memory, forgetting entries once they expire. */
export function memoryReplayStore(): ReplayStore {
  const seen = new Map<string, number>();
  return {
    remember(id, expiresAt) {
      const now = Date.now();
      for (const [key, until] of seen) if (until <= now) seen.delete(key);
      if (seen.has(id)) return false;
      seen.set(id, expiresAt);
      return true;
    },
  };
}

export interface WebhookVerifierOptions {
  /** The secret given for the job, monitor or callback (or returned by the call that set the URL). */
  secret: string;
  toleranceSeconds?: number;
  replay?: ReplayStore;
  /** Milliseconds since epoch; for tests. */
  now?: () => number;
}

const encoder = new TextEncoder();
const HEADER = /^t=(\d{1,12}),v2=([0-9a-f]{64})$/;

function bytesOf(body: string | ArrayBuffer | Uint8Array): Uint8Array {
  if (typeof body === "string") return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

/**
 * Returns `verify(rawBody, header)`: resolves to the parsed JSON body of a genuine, fresh, first-seen delivery and
 * throws WebhookVerificationError otherwise. Pass the body exactly as received (before any JSON parsing).
 */
export function webhookVerifier({
  secret,
  toleranceSeconds = 300,
  replay = memoryReplayStore(),
  now = Date.now,
}: WebhookVerifierOptions) {
  const key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);

  return async (rawBody: string | ArrayBuffer | Uint8Array, header: string | null | undefined): Promise<unknown> => {
    const match = HEADER.exec(header?.trim() ?? "");
    if (!match)
      throw new WebhookVerificationError(
        "malformed_header",
        "X-Service-Signature-V2 is missing or not t=<digits>,v2=<hex>.",
      );
    const [, t, v2] = match as unknown as [string, string, string];
    const skew = Math.abs(now() / 1000 - Number(t));
    if (skew > toleranceSeconds)
      throw new WebhookVerificationError("stale_timestamp", `The timestamp is ${Math.round(skew)} s from this clock.`);

    const body = bytesOf(rawBody);
    const prefix = encoder.encode(`v2:${t}:`);
    const signed = new Uint8Array(prefix.length + body.length);
    signed.set(prefix);
    signed.set(body, prefix.length);
    const digest = new Uint8Array(v2.match(/../g)!.map((pair) => parseInt(pair, 16)));
    if (!(await crypto.subtle.verify("HMAC", await key, digest, signed))) {
      throw new WebhookVerificationError("bad_signature", "The signature does not match the body and secret.");
    }
    // Only genuine deliveries are remembered, so forged ones cannot fill the memory.
    if (!(await replay.remember(v2, (Number(t) + toleranceSeconds) * 1000))) {
      throw new WebhookVerificationError("replayed", "This delivery was already accepted.");
    }
    return JSON.parse(new TextDecoder().decode(body));
  };
}
