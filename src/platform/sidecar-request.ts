import { hmacHex } from "./tokens";
/**
 * The one signed request the Worker makes to the SMTP sidecar (workers/smtp-sidecar): every endpoint (`/v1/probe`,
 * `/v1/deliver`, `/v1/submit`) takes a JSON body signed with the shared secret. Wire format, verified by
 * workers/smtp-sidecar/auth.mjs:
 *
 *   X-Sidecar-Timestamp: <unix seconds>
 *   X-Sidecar-Signature: lowercase hex HMAC-SHA256(secret, `${timestamp}.${rawBody}`)
 *
 * rawBody is the exact string sent. Both files must change together.
 */

/** `url` in dev and tests (var SMTP_SIDECAR_URL); `fetcher` in production (the Container binding). */
export type SidecarTarget = { url: string } | { fetcher: Pick<Fetcher, "fetch"> };

export interface SidecarPost {
  target: SidecarTarget;
  secret: string;
  path: "/v1/probe" | "/v1/deliver" | "/v1/submit";
  /** Sent as JSON. */
  body: unknown;
  /** The sidecar's own deadline for the work; the request waits 2 s longer for its answer. */
  timeoutMs: number;
  /** Used for `{ url }` targets; a `{ fetcher }` target uses its own fetch. */
  fetchImpl?: typeof fetch;
}

/** The sidecar's status and JSON answer (null when the body is not JSON), or why no answer came. */
export type SidecarReply = { status: number; answer: unknown } | { unreachable: string };

/** Room for the answer to travel back after the sidecar's own deadline. */
const ANSWER_MARGIN_MS = 2_000;

/** Signs and posts `body`; never throws: a network error or a timeout is `unreachable`. */
export async function postToSidecar(post: SidecarPost): Promise<SidecarReply> {
  const body = JSON.stringify(post.body);
  try {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const init: RequestInit = {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "x-sidecar-timestamp": timestamp,
        "x-sidecar-signature": await signSidecarRequest(post.secret, timestamp, body),
      },
      signal: AbortSignal.timeout(post.timeoutMs + ANSWER_MARGIN_MS),
    };
    const { target } = post;
    const response =
      "url" in target
        ? await (post.fetchImpl ?? fetch)(`${target.url.replace(/\/+$/, "")}${post.path}`, init)
        : await target.fetcher.fetch(`http://smtp-sidecar${post.path}`, init);
    const answer: unknown = await response.json().catch(() => null);
    return { status: response.status, answer };
  } catch (err) {
    return { unreachable: err instanceof Error ? err.message : String(err) };
  }
}

/** Lowercase hex HMAC-SHA256 of `${timestamp}.${body}`, the value of X-Sidecar-Signature. */
export const signSidecarRequest = (secret: string, timestamp: string, body: string): Promise<string> =>
  hmacHex(secret, `${timestamp}.${body}`);
