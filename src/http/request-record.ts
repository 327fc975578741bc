import { database } from "../db/client";
import { requestOfAccount, requestOwner, type RequestRecord } from "../db/request-log";
import { recentRecord } from "./request-log";
import { madeFor, requestIdTime } from "./request-id-format";

/**
 * How long after a request its record may still be on its way to D1: 25 ms pending in its isolate, then the JOBS
 * queue's batch wait (1 s, wrangler.toml) and the consumer's insert, with room for a busy queue.
 */
export const RECORD_READABLE_WITHIN_MS = 5_000;
const POLL_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A record as D1 will store it (the pending record leaves `code` and `credits` out when they are empty). */
const asStored = (r: NonNullable<ReturnType<typeof recentRecord>>): RequestRecord => ({
  requestId: r.requestId,
  accountId: r.accountId,
  keyId: r.keyId ?? null,
  method: r.method,
  path: r.path,
  status: r.status,
  code: r.code ?? null,
  credits: r.credits ?? 0,
  createdAt: r.createdAt,
});

/** The record when it is readable yet; `null` when it is known to be another account's (nothing to wait for). */
async function lookOnce(env: Env, accountId: string, requestId: string): Promise<RequestRecord | null | undefined> {
  const kept = recentRecord(requestId);
  if (kept) return kept.accountId === accountId ? asStored(kept) : null;
  const owner = await requestOwner(database(env), requestId);
  if (owner === undefined) return undefined;
  return owner === accountId ? ((await requestOfAccount(database(env), accountId, requestId)) ?? null) : null;
}

/** Whose record is asked for: the account, the id, and the credential the asking request presented. */
export interface RecordAsk {
  accountId: string;
  requestId: string;
  /** `requestCredential` of the asking request (src/http/credential.ts). */
  credential: string;
}

/**
 * The account's record of `requestId`, readable as soon as the request's answer was received (read-your-writes):
 * logged lately by this isolate (maybe not yet stored), or stored in D1. For an id made within the last
 * `RECORD_READABLE_WITHIN_MS` whose record is in neither (logged by another isolate, still on the queue), it waits,
 * looking every 200 ms, until the record is stored or that time has passed since the request, but only when this
 * service signed the id for the credential asking now (`madeFor`): an id a caller made up, or one of another
 * credential, is answered from one look, at once. Nothing of this is on a lookup's path: a lookup only logs.
 */
export async function readRequestRecord(env: Env, ask: RecordAsk): Promise<RequestRecord | undefined> {
  const { accountId, requestId } = ask;
  const found = await lookOnce(env, accountId, requestId);
  const madeAt = requestIdTime(requestId);
  if (found !== undefined || madeAt === null || madeAt > Date.now() + POLL_MS) return found ?? undefined;
  if (Date.now() >= madeAt + RECORD_READABLE_WITHIN_MS) return undefined;
  if (!(await madeFor({ id: requestId, secret: env.MAIL_LINK_SECRET, credential: ask.credential }))) return undefined;
  while (Date.now() < madeAt + RECORD_READABLE_WITHIN_MS) {
    await sleep(POLL_MS);
    const later = await lookOnce(env, accountId, requestId);
    if (later !== undefined) return later ?? undefined;
  }
  return undefined;
}
