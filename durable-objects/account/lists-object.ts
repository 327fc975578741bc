import { DurableObject } from "cloudflare:workers";
import { importLists, listsImported } from "./list-import";
import { feedbackCounts, historyPage, latestFeedback, suppressionPage } from "./list-pages";
import type {
  FeedbackCountQuery,
  FeedbackCounts,
  HistoryPage,
  HistoryQuery,
  LatestFeedbackQuery,
  ListsWrite,
  StoredFeedback,
  StoredKeyed,
  StoredSuppression,
  SuppressionEntry,
} from "./list-types";
import { AccountLists } from "./lists";

/**
 * The account's lists as RPC methods of its object (the account's object extends this): repeat markers,
 * suppressions, history and feedback live beside its money, so each account is its own shard and D1 keeps only shared
 * data. The first use of the lists moves the account's rows of the old D1 layout in (once; see list-import.ts), with
 * every other call to the object held back until that is done.
 */
export abstract class ListsObject extends DurableObject<Env> {
  protected readonly lists: AccountLists;
  private imported: boolean;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.lists = new AccountLists(ctx.storage.sql);
    this.imported = listsImported(ctx.storage.sql);
  }

  /** The lists, once the account's old D1 rows are in. */
  protected async ready(): Promise<AccountLists> {
    if (!this.imported) await this.ctx.blockConcurrencyWhile(() => this.importOnce(false));
    // Retention inside the object (at most hourly): an account that stops writing still loses expired rows.
    this.lists.prune(Date.now());
    return this.lists;
  }

  /** The operator's move (or a re-run of it): copies the account's D1 rows that are not here yet; returns how many. */
  async importLists(): Promise<number> {
    let inserted = 0;
    await this.ctx.blockConcurrencyWhile(async () => {
      inserted = await this.importOnce(true);
    });
    return inserted;
  }

  private async importOnce(again: boolean): Promise<number> {
    if (this.imported && !again) return 0;
    const accountId = this.ctx.id.name;
    // An object addressed by id rather than name has no account to read for: it starts with empty lists.
    const inserted = accountId ? await importLists(this.ctx.storage.sql, this.env.DB, accountId, Date.now()) : 0;
    this.imported = true;
    return inserted;
  }

  async recallLists(
    product: string,
    keys: string[],
    want: { repeats: boolean; suppressions: boolean; staleBelow?: number },
    now = Date.now(),
  ): Promise<{ repeats: StoredKeyed[]; suppressions: StoredKeyed[] }> {
    return (await this.ready()).recall(product, keys, now, want);
  }

  async rekeyLists(table: "repeats" | "suppressions", product: string, moves: [string, string][], version: number) {
    (await this.ready()).rekey(table, product, moves, version);
  }

  async writeLists(product: string, write: ListsWrite, now = Date.now()): Promise<void> {
    (await this.ready()).write(product, write, now);
  }

  async addSuppressions(product: string, entries: SuppressionEntry[], now: number, keyVersion: number) {
    return (await this.ready()).addManual(product, entries, now, keyVersion);
  }

  async removeSuppressions(product: string, keys: string[]): Promise<number> {
    return (await this.ready()).removeKeys(product, keys);
  }

  async removeSuppression(product: string, id: number): Promise<StoredSuppression | null> {
    return (await this.ready()).removeId(product, id);
  }

  async listSuppressions(product: string, page: number, key?: string) {
    await this.ready();
    return suppressionPage(this.ctx.storage.sql, product, page, key);
  }

  async listHistory(product: string, query: HistoryQuery): Promise<HistoryPage> {
    await this.ready();
    return historyPage(this.ctx.storage.sql, product, query);
  }

  async feedbackCounts(query: FeedbackCountQuery) {
    await this.ready();
    return feedbackCounts(this.ctx.storage.sql, query) satisfies FeedbackCounts;
  }

  async latestFeedback(query: LatestFeedbackQuery): Promise<StoredFeedback[]> {
    await this.ready();
    return latestFeedback(this.ctx.storage.sql, query);
  }

  /** Retention now rather than on the next write (the daily sweep asks objects it knows of; tests). */
  async pruneLists(now = Date.now()) {
    (await this.ready()).prune(now, true);
  }
}
