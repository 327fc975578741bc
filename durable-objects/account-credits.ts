import type { PlanName } from "../src/engines/credits/plans";
import { database } from "../src/db/client";
import { recordUnfinished } from "../src/db/request-log";
import { Balance } from "./account/balance";
import { ListsObject } from "./account/lists-object";
import { Notices, type MailSettings, type NoticeMessage } from "./account/notices";
import { PolicyStamps } from "./account/policy-stamps";
import { type PaymentRefund, RefundedPayments } from "./account/refunded-payments";
import { Reservations } from "./account/reservations";
import { answeredFree, type BeginRecall, type StoredFeedback, type StoredKeyed } from "./account/list-types";
import { latestFeedback } from "./account/list-pages";
import type { AccountLists } from "./account/lists";
import type {
  AccountSnapshot,
  AdmissionRequest,
  Entered,
  LedgerRow,
  ReserveRequest,
  ReserveResult,
  ResizeRequest,
  Settlement,
  SettleResult,
} from "./account/types";
import { RateWindows } from "./account/windows";
import { ClaimBook, type Claims } from "./claims";

export type * from "./account/types";
export type * from "./account/list-types";
export type { MailSettings, Notice, NoticeMessage } from "./account/notices";
export type { Claims };

/** What `begin` answers: the lists' rows for the walk's values, and its hold. */
export interface Begun {
  recall: { repeats: StoredKeyed[]; suppressions: StoredKeyed[]; feedback?: StoredFeedback[] };
  hold: ReserveResult;
  /** The keys the hold was asked for, in order: the claims less the values a stored row answers free. */
  asked: string[];
}

/** A reservation not settled within this time is released by the alarm (its Worker died mid-request). */
const RESERVATION_TTL_MS = 15 * 60 * 1000;
/** A notice whose queue send failed is tried again this much later (by the alarm). */
const NOTICE_RETRY_MS = 60_000;

/**
 * One account's hot state, so a request needs one call to one object before its product work: the rate windows of
 * the account's keys and visitors, its money (plan and pack balances, reservations, the ledger, per-key daily spend,
 * the fair-use window), the claims of values being answered, and its policy versions. Every money method runs without
 * awaiting, so each is atomic; nothing else writes a balance.
 *
 * A request's first call is one of the `enter*` methods: it counts the request's rate limits first and does nothing
 * else when one refuses. Queued work (bulk chunks, monitor runs) has no rate limit and calls the plain methods.
 */
export class AccountCredits extends ListsObject {
  private readonly balances: Balance;
  private readonly claims: ClaimBook;
  private readonly reservations: Reservations;
  private readonly windows = new RateWindows();
  private readonly policies: PolicyStamps;
  private readonly notices: Notices;
  private readonly refunds: RefundedPayments;
  /** When the alarm is set for, as far as this instance knows (saves a storage read on every hold). */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    this.balances = new Balance(sql);
    this.claims = new ClaimBook(sql, (product, items) => this.lists.answeredSince(product, items, Date.now()));
    this.notices = new Notices(sql);
    this.reservations = new Reservations(sql, this.balances, this.claims, (keyId, cap, now) =>
      this.notices.capReached(keyId, cap, now),
    );
    this.policies = new PolicyStamps(sql);
    this.refunds = new RefundedPayments(sql, this.balances);
  }

  /**
   * Sets the plan (creating the balance on first use) or cancels it; plan credits then expire after the grace period.
   */
  setPlan(plan: PlanName | "cancelled", now = Date.now()): AccountSnapshot {
    this.balances.setPlan(plan, now);
    return this.view(now);
  }

  /** Adds operator-granted plan credits or purchased pack credits. */
  addCredits(bucket: "plan" | "pack", amount: number, note: string | null, requestId: string | null, now = Date.now()) {
    this.balances.addCredits(bucket, amount, note, requestId, now);
    this.balanceMoved(now);
    return this.view(now);
  }

  /** The account's mail settings (docs/mail.md): the low balance threshold and bulk-finished mail. */
  mailSettings(): MailSettings {
    return this.notices.settings();
  }

  setMailSettings(patch: Partial<MailSettings>, now = Date.now()): AccountSnapshot {
    this.notices.set(patch);
    this.balanceMoved(now);
    return this.view(now);
  }

  /**
   * A payment's credits (a pack bought), applied once per `requestId` (the payment's own id, not the event's): the
   * check and the movement run in one call with no await, so a payment announced by several events credits once.
   */
  applyPayment(requestId: string, credits: number, note: string | null, now = Date.now()) {
    if (this.balances.hasMovement(requestId))
      return { applied: false, credits: 0, snapshot: this.balances.snapshot(now) };
    this.balances.addCredits("pack", credits, note, requestId, now);
    return { applied: true, credits, snapshot: this.balances.snapshot(now) };
  }

  /** A payment's refund up to its running total, in one call with no await (`RefundedPayments`). */
  refundPayment(refund: PaymentRefund, now = Date.now()) {
    const { applied, taken } = this.refunds.apply(refund, now);
    return { applied, credits: -taken, snapshot: this.balances.snapshot(now) };
  }

  /** A request with nothing else to ask of the account yet (or ever): its rate limits only. */
  enter(admission: AdmissionRequest): Entered<null> {
    return this.admit(admission, () => null);
  }

  /** A request's first hold: rate limits, then the daily cap and the balance, then the reservation. */
  async enterReserve(admission: AdmissionRequest, request: ReserveRequest): Promise<Entered<ReserveResult>> {
    const entered = this.admit(admission, () => this.reservations.reserve(request, admission.request));
    this.handOverNotices();
    if (entered.admitted && entered.value.ok) await this.armAlarm(request.now ?? Date.now());
    return entered;
  }

  /** A request answered without a hold (test values, repeats): rate limits, then the balance for its `meta`. */
  enterBalance(
    admission: AdmissionRequest,
    product: string | null,
  ): Entered<{ available: number; prepaid: number | null }> {
    return this.admit(admission, () => this.reservations.available(product, Date.now()));
  }

  enterSnapshot(admission: AdmissionRequest): Entered<AccountSnapshot> {
    return this.admit(admission, () => this.view(Date.now()));
  }

  enterLedger(
    admission: AdmissionRequest,
    page: number,
    perPage: number,
  ): Entered<{ rows: LedgerRow[]; total: number }> {
    return this.admit(admission, () => this.balances.ledger(page, perPage, Date.now()));
  }

  /**
   * A walk's one call before its answer: the request's rate limits, then the repeats and suppressions of its values,
   * then the hold (the daily cap, the balance, the claims), in one synchronous step once the lists are loaded.
   */
  async enterBegin(admission: AdmissionRequest, request: ReserveRequest, recall: BeginRecall): Promise<Entered<Begun>> {
    const lists = await this.ready();
    const entered = this.admit(admission, () => this.begun(lists, request, recall, admission.request));
    this.handOverNotices();
    if (entered.admitted && entered.value.hold.ok) await this.armAlarm(request.now ?? Date.now());
    return entered;
  }

  /** `enterBegin` for a request already admitted, or queued work (no rate limit). */
  async begin(request: ReserveRequest, recall: BeginRecall): Promise<Begun> {
    const begun = this.begun(await this.ready(), request, recall);
    this.handOverNotices();
    if (begun.hold.ok) await this.armAlarm(request.now ?? Date.now());
    return begun;
  }

  private begun(
    lists: AccountLists,
    request: ReserveRequest,
    recall: BeginRecall,
    record?: AdmissionRequest["request"],
  ): Begun {
    const rows = lists.recall(recall.product, recall.keys, recall.at, recall.want);
    const free = recall.free ? answeredFree(rows, recall.free.repeatsAfter) : new Set<string>();
    // A batch's first wave: the hold is asked only for what the rows leave to pay for (with `share`, at most half of
    // what is available, as any wave).
    const claims = request.claims && { ...request.claims, items: request.claims.items.filter((c) => !free.has(c.key)) };
    const feedback = recall.want.feedback;
    return {
      recall: feedback
        ? {
            ...rows,
            feedback: latestFeedback(
              this.ctx.storage.sql,
              feedback.product ?? recall.product,
              feedback.keys ?? recall.keys,
              feedback.since,
              feedback.ignored,
            ),
          }
        : rows,
      hold: this.reservations.reserve(claims ? { ...request, claims } : request, record),
      asked: claims?.items.map((c) => c.key) ?? [],
    };
  }

  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const result = this.reservations.reserve(request);
    this.handOverNotices();
    if (result.ok) await this.armAlarm(request.now ?? Date.now());
    return result;
  }

  /** The next wave of a walk on the same reservation (see Reservations.resize). */
  resize(reservationId: string, request: ResizeRequest): ReserveResult {
    const result = this.reservations.resize(reservationId, request);
    this.handOverNotices();
    return result;
  }

  /** Resolves once none of `keys` is claimed by a walk in flight, or after `timeoutMs`; returns those still claimed. */
  awaitClaims(product: string, keys: string[], timeoutMs: number): Promise<string[]> {
    return this.claims.wait(product, keys, timeoutMs);
  }

  /**
   * Settles a hold and, in the same synchronous step, writes what its answers taught the account's lists: the
   * walk's one call after its answer. A settlement repeated (a retry) writes nothing twice.
   */
  async settle(reservationId: string, settlement: Settlement): Promise<SettleResult> {
    const lists = settlement.lists ? await this.ready() : null;
    const result = this.reservations.settle(reservationId, settlement);
    if (lists && settlement.lists && !result.alreadySettled)
      lists.write(settlement.lists.product, settlement.lists.write, settlement.lists.at);
    if (result.charged > 0) this.balanceMoved(settlement.now ?? Date.now());
    return result;
  }

  release(reservationId: string): SettleResult {
    return this.reservations.settle(reservationId, { credits: 0 });
  }

  operationCharges(operationId: string): Record<string, number> | null {
    return this.reservations.operationCharges(operationId);
  }

  /** Credits available now and, for a product that sells several units a credit, its prepaid units: one read. */
  balance(product: string | null, now = Date.now()): { available: number; prepaid: number | null } {
    return this.reservations.available(product, now);
  }

  snapshot(now = Date.now()): AccountSnapshot {
    return this.view(now);
  }

  ledger(page: number, perPage: number): { rows: LedgerRow[]; total: number } {
    return this.balances.ledger(page, perPage, Date.now());
  }

  /** A policy was written (its `updated_at`) or deleted (0). */
  setPolicyStamp(product: string, stamp: number): void {
    this.policies.set(product, stamp);
  }

  /** What a Worker read from D1 for a product this object did not know yet. */
  learnPolicyStamp(product: string, stamp: number): void {
    this.policies.learn(product, stamp);
  }

  /**
   * Releases reservations whose Worker never settled them, and records each such HTTP request as free (unless its
   * Worker recorded it after all). The records are written first: if that fails the alarm is retried, holds included.
   */
  override async alarm() {
    await this.sendNotices();
    const now = Date.now();
    const cutoff = now - RESERVATION_TTL_MS;
    await recordUnfinished(database(this.env), this.reservations.unfinished(cutoff));
    this.reservations.expire(cutoff, now);
    const oldest = this.reservations.oldest();
    this.alarmAt = oldest === null ? null : oldest + RESERVATION_TTL_MS;
    // Notices a failed queue send left are tried again within a minute.
    if (this.notices.hasPending) this.alarmAt = Math.min(this.alarmAt ?? Infinity, now + NOTICE_RETRY_MS);
    if (this.alarmAt !== null) await this.ctx.storage.setAlarm(this.alarmAt);
  }

  /** The snapshot with the account's mail settings (GET /account shows both from this one call). */
  private view(now: number): AccountSnapshot {
    return { ...this.balances.snapshot(now), mail: this.notices.settings() };
  }

  /** The balance changed: maybe a low balance warning (once per crossing), handed to the queue after this call. */
  private balanceMoved(now: number) {
    const state = this.balances.current(now);
    this.notices.balanceMoved(state.plan_credits + state.pack_credits, now);
    this.handOverNotices();
  }

  /**
   * Recorded notices go to the queue after the call answered (never awaited by the caller: no round trip is added to
   * the request that caused them). The account's id is this object's name (the object is addressed by name).
   */
  private handOverNotices() {
    if (this.notices.hasPending) this.ctx.waitUntil(this.sendNotices());
  }

  private async sendNotices(): Promise<void> {
    const pending = this.notices.pending();
    const accountId = this.ctx.id.name;
    if (!pending.length || !accountId) return;
    try {
      await this.env.JOBS.sendBatch(
        pending.map((notice): { body: NoticeMessage } => ({ body: { type: "mail_notice", accountId, notice } })),
      );
      this.notices.handedOver(pending.map((n) => n.id));
    } catch (err) {
      console.error(JSON.stringify({ event: "mail_notice_queue_failed", error: String(err) }));
      const at = Date.now() + NOTICE_RETRY_MS;
      if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
      if (this.alarmAt === null || this.alarmAt > at) {
        this.alarmAt = at;
        await this.ctx.storage.setAlarm(at);
      }
    }
  }

  private admit<T>(admission: AdmissionRequest, then: () => T): Entered<T> {
    const refused = this.windows.hit(admission.hits, Date.now());
    if (refused) return { admitted: false, ...refused };
    return { admitted: true, value: then(), policies: this.policies.all() };
  }

  private async armAlarm(now: number) {
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null) return;
    this.alarmAt = now + RESERVATION_TTL_MS;
    await this.ctx.storage.setAlarm(this.alarmAt);
  }
}
