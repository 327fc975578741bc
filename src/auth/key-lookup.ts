import type { Account } from "../db/accounts";
import { accountById } from "../db/accounts";
import { database, envOf, replicaReads, type Database } from "../db/client";
import { queryKeyByHash, type StoredKey } from "../db/keys";
import { countUnknownKey, unknownKeysRefusal } from "../limits/unknown-keys";
import { TtlCache } from "../platform/ttl-cache";

/** How long a key row answers from an isolate's memory: the bound on revocations and other changes made elsewhere. */
export const KEY_CACHE_TTL_MS = 10_000;
/** How long "no such key" is remembered. Keys are random, so an unknown hash does not become a key later. */
export const UNKNOWN_KEY_TTL_MS = 60_000;

export interface KeyLookupOptions<T> {
  query: (db: Database, keyHash: string) => Promise<T | null>;
  /** The same row from the nearby read replica only (no primary query): all a guess from a flooding address costs. */
  nearby: (db: Database, keyHash: string) => Promise<T | null>;
  /**
   * Whether a remembered row answers by itself. When false every lookup of a known key still reads D1 (so a change
   * applies at once everywhere), but a key seen valid lately is exempt from the unknown-key budget.
   */
  answerFromCache: boolean;
  /** Called with each row read from D1 that is also remembered. */
  onLoad?: (row: T) => void;
}

/**
 * A per-isolate key cache in front of D1, for keys looked up by the hash of what the caller sent:
 * - known rows (valid, revoked or otherwise refused) and unknown hashes are remembered, each in its own bounded cache,
 *   so a flood of random keys never evicts the rows of real ones;
 * - only settled rows are shared between requests, never a read under way: Workers do not let a request await another
 *   request's I/O (a waiter can be cancelled with the request that started the read and answer a bare 500), so
 *   requests that arrive together for one uncached key each read it, and the ones after answer from memory;
 * - a key this isolate knows nothing about counts against its caller's unknown-key budget
 *   (src/limits/unknown-keys.ts) only when it turns out unknown. Over the budget it is read from the nearby replica
 *   only: a key the replica holds is answered as ever (a valid key is never refused for what others sent from its
 *   address), one it does not is 429 RATE_LIMITED, so a flood of guesses costs replica reads and never the primary.
 */
export class KeyLookup<T> {
  private readonly known = new TtlCache<T>(50_000);
  private readonly unknown = new TtlCache<true>(50_000);
  /** Bumped by every forget, so a query that started before a change cannot put the old row back. */
  private generation = 0;

  constructor(private readonly options: KeyLookupOptions<T>) {}

  async find(db: Database, keyHash: string, sourceAddress: string | undefined): Promise<T | null> {
    if (this.unknown.get(keyHash)) return null;
    const remembered = this.known.get(keyHash);
    if (remembered !== undefined && this.options.answerFromCache) return remembered;
    const counted = remembered === undefined;
    const refusal = counted ? unknownKeysRefusal(sourceAddress) : null;
    if (refusal) return this.overBudget(db, keyHash, refusal);
    const generation = this.generation;
    const row = await this.options.query(db, keyHash);
    if (row === null) {
      // One unknown key sent many times at once counts once: only the lookup that first learns it is unknown.
      const learnt = !this.unknown.get(keyHash);
      if (generation === this.generation) this.remember(keyHash, row);
      if (counted && learnt) countUnknownKey(sourceAddress);
      return null;
    }
    if (generation === this.generation) this.remember(keyHash, row);
    return row;
  }

  /**
   * A lookup from an address over its unknown-key budget: the replica's row, or the refusal when it has none (a key
   * minted in the last moments elsewhere, which the replica has not caught up with yet, meets it too, for as long as
   * the replication delay). A row found is read again from the primary when rows do not answer from memory (feedback
   * keys: a rotation applies at once).
   */
  private async overBudget(db: Database, keyHash: string, refusal: Error): Promise<T | null> {
    const generation = this.generation;
    const near = await this.options.nearby(db, keyHash);
    if (near === null) throw refusal;
    const row = this.options.answerFromCache ? near : await this.options.query(db, keyHash);
    if (generation === this.generation) this.remember(keyHash, row);
    return row;
  }

  private remember(keyHash: string, row: T | null): void {
    if (row === null) {
      this.known.delete(keyHash);
      this.unknown.set(keyHash, true, UNKNOWN_KEY_TTL_MS);
    } else {
      this.known.set(keyHash, row, KEY_CACHE_TTL_MS);
      this.options.onLoad?.(row);
    }
  }

  /** Forgets one key (by hash) in this isolate. */
  forget(keyHash: string): void {
    this.generation += 1;
    this.known.delete(keyHash);
  }

  /**
   * Forgets every remembered row that matches; no lookup under way remembers what it reads (its row may be the old
   * one).
   */
  forgetWhere(matches: (row: T) => boolean): void {
    this.generation += 1;
    this.known.deleteWhere(matches);
  }
}

const keyRowOnReplica = (db: Database, keyHash: string) => queryKeyByHash(database(replicaReads(envOf(db))), keyHash);

export type AccountFields = Pick<Account, "id" | "email" | "emailVerified" | "createdAt">;

const accountFields = new TtlCache<AccountFields>(50_000);

/**
 * A key row this isolate does not hold is read through a read-replica session near the caller (no D1 primary query
 * before the answer); a hash the replica does not know is asked of the primary, so a key minted a moment ago elsewhere
 * works at once. A change to a known row (revoked, new scopes) reaches this isolate within the cache's 10 s plus the
 * replica's lag.
 */
async function keyRowNearby(db: Database, keyHash: string): Promise<StoredKey | null> {
  const near = await keyRowOnReplica(db, keyHash);
  if (near) return near;
  return queryKeyByHash(db, keyHash);
}

const apiKeyLookup = new KeyLookup<StoredKey>({
  query: keyRowNearby,
  nearby: keyRowOnReplica,
  answerFromCache: true,
  onLoad: (key) =>
    accountFields.set(
      key.accountId,
      { id: key.accountId, email: key.accountEmail, emailVerified: key.emailVerified, createdAt: key.accountCreatedAt },
      KEY_CACHE_TTL_MS,
    ),
});

/**
 * The secret or publishable key with this hash, or null when there is none. Throws 429 RATE_LIMITED (no primary read)
 * when neither this isolate's cache nor the nearby replica holds it and `sourceAddress` sent too many unknown keys.
 */
export const findKeyByHash = (db: Database, keyHash: string, sourceAddress: string | undefined) =>
  apiKeyLookup.find(db, keyHash, sourceAddress);

/** After a key is revoked (or its scopes, allowlist or cap change): this isolate stops using its old row at once. */
export const forgetKey = (keyHash: string) => apiKeyLookup.forget(keyHash);

/** After a member leaves or joins: every key the member holds on the account. */
export const forgetMemberKeys = (accountId: string, userId: string) =>
  apiKeyLookup.forgetWhere((key) => key.accountId === accountId && key.userId === userId);

/** After a change to the account itself (email confirmed): every key of the account and its remembered fields. */
export function forgetAccountKeys(accountId: string): void {
  apiKeyLookup.forgetWhere((key) => key.accountId === accountId);
  accountFields.delete(accountId);
}

/**
 * The account fields `GET /account` shows. The key check that admitted the request has just put them in this isolate's
 * memory (same lifetime as the key row), so this reads D1 only when they were evicted meanwhile.
 */
export async function accountFieldsOf(db: Database, accountId: string): Promise<AccountFields | undefined> {
  return accountFields.get(accountId) ?? (await accountById(db, accountId));
}
