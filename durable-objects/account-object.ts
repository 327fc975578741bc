import type { PlanName } from "../src/engines/credits/plans";
import { AccountAlarm, RESERVATION_TTL_MS } from "./account/alarm";
import { Balance } from "./account/balance";
import { ListsObject } from "./account/lists-object";
import { Notices, type MailSettings } from "./account/notices";
import { PolicyStamps } from "./account/policy-stamps";
import { type PaymentRefund, RefundedPayments } from "./account/refunded-payments";
import { Reservations } from "./account/reservations";
import { type Begun, beginWalk } from "./account/begin";
import type { BeginRecall } from "./account/list-types";
import { dailyAnswers } from "./account/list-pages";
import type { DailyCharge } from "./account/ledger";
import type { AccountLists } from "./account/lists";
import type {
  AccountSnapshot,
  AdmissionRequest,
  CreditGrant,
  Entered,
  LedgerRow,
  RequestRefund,
  ReserveRequest,
  ReserveResult,
  ResizeRequest,
  Settlement,
  SettleResult,
} from "./account/types";
import { RateWindows } from "./account/windows";
import { ClaimBook } from "./claims";

export type * from "./account/types";
export type * from "./account/list-types";
export type { Notice, NoticeMessage } from "./account/notices";

/** Values answered in one UTC day for one product, with the credits their history rows say they cost. */
type DailyAnswer = ReturnType<typeof dailyAnswers>[number];

export type { Begun };

/**
 * One account's hot state, so a request needs one call to one object before its product work: the rate windows of
 * the account's keys and visitors, its money (plan and pack balances, reservations, the ledger, per-key daily spend,
 * the fair-use window), the claims of values being answered, and its policy versions. Every money method runs without
 * awaiting, so each is atomic; nothing else writes a balance.
 *
 * A request's first call is one of the `enter*` methods: it counts the request's rate limits first and does nothing
 * else when one refuses. Queued work (bulk chunks, monitor runs) has no rate limit and calls the plain methods.
 */
export class AccountObject extends ListsObject {
  private readonly balances: Balance;
  private readonly claims: ClaimBook;
  private readonly reservations: Reservations;
  private readonly windows = new RateWindows();
  private readonly policies: PolicyStamps;
  private readonly notices: Notices;
  private readonly refunds: RefundedPayments;
  private readonly alarms: AccountAlarm;

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
    this.alarms = new AccountAlarm(ctx, env, { notices: this.notices, reservations: this.reservations });
  }

  /**
   * Sets the plan (creating the balance on first use) or cancels it; plan credits then expire after the grace period.
   */
  setPlan(plan: PlanName | "cancelled", now = Date.now()): AccountSnapshot {
    this.balances.setPlan(plan, now);
    return this.view(now);
  }

  /** Adds operator-granted plan credits or purchased pack credits. */
  addCredits({ now = Date.now(), ...grant }: CreditGrant) {
    this.balances.addCredits({ ...grant, now });
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
    this.balances.addCredits({ bucket: "pack", amount: credits, note, requestId, now });
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
    this.alarms.handOverNotices();
    if (entered.admitted && entered.value.ok) await this.alarms.arm(request.now ?? Date.now());
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
    this.alarms.handOverNotices();
    if (entered.admitted && entered.value.hold.ok) await this.alarms.arm(request.now ?? Date.now());
    return entered;
  }

  /** `enterBegin` for a request already admitted, or queued work (no rate limit). */
  async begin(request: ReserveRequest, recall: BeginRecall): Promise<Begun> {
    const begun = this.begun(await this.ready(), request, recall);
    this.alarms.handOverNotices();
    if (begun.hold.ok) await this.alarms.arm(request.now ?? Date.now());
    return begun;
  }

  private begun(
    lists: AccountLists,
    request: ReserveRequest,
    recall: BeginRecall,
    record?: AdmissionRequest["request"],
  ): Begun {
    return beginWalk({ sql: this.ctx.storage.sql, lists, reservations: this.reservations }, request, recall, record);
  }

  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const result = this.reservations.reserve(request);
    this.alarms.handOverNotices();
    if (result.ok) await this.alarms.arm(request.now ?? Date.now());
    return result;
  }

  /** The next wave of a walk on the same reservation (see Reservations.resize). */
  resize(reservationId: string, request: ResizeRequest): ReserveResult {
    const result = this.reservations.resize(reservationId, request);
    this.alarms.handOverNotices();
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
      lists.write(settlement.lists.product, settlement.lists.write, settlement.lists.at, result.requestId);
    if (result.charged > 0) this.balanceMoved(settlement.now ?? Date.now());
    return result;
  }

  /**
   * A request that ended in an error after its walk settled (its answer never reached the caller): what its
   * settlements charged comes back (credits, prepaid units, its key's daily spend: a `refund` row), and its repeat
   * markers and history go. Once per request, so a retry gives back nothing more.
   */
  async refundRequest(requestId: string, now = Date.now()): Promise<RequestRefund> {
    const lists = await this.ready();
    // Its charges and rows were written while its holds lived: the alarm releases a hold older than the TTL.
    const since = now - 2 * RESERVATION_TTL_MS;
    const refund = this.reservations.refund(requestId, { now, since });
    if (refund.applied) lists.forget(requestId, since);
    if (refund.credits > 0) this.balanceMoved(now);
    return refund;
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

  /** The ledger's rows written under one request or operation id (a bulk chunk, a monitor run, a payment). */
  movements(requestId: string): LedgerRow[] {
    return this.balances.movements(requestId);
  }

  /**
   * The usage page's figures since `since`, per UTC day and product, in one call: the credits that left the balance
   * (every charge row of the ledger, whatever made it) and the values answered (the history).
   */
  async usage(since: number, now = Date.now()): Promise<{ charged: DailyCharge[]; answered: DailyAnswer[] }> {
    await this.ready();
    return { charged: this.balances.dailyCharges(since, now), answered: dailyAnswers(this.ctx.storage.sql, since) };
  }

  /** A policy was written (its `updated_at`) or deleted (0). */
  setPolicyStamp(product: string, stamp: number): void {
    this.policies.set(product, stamp);
  }

  /** What a Worker read from D1 for a product this object did not know yet. */
  learnPolicyStamp(product: string, stamp: number): void {
    this.policies.learn(product, stamp);
  }

  /** Releases holds whose Worker died mid-request and retries notices a queue send left (AccountAlarm). */
  override async alarm() {
    await this.alarms.ring();
  }

  /** The snapshot with the account's mail settings (GET /account shows both from this one call). */
  private view(now: number): AccountSnapshot {
    return { ...this.balances.snapshot(now), mail: this.notices.settings() };
  }

  /** The balance changed: maybe a low balance warning (once per crossing), handed to the queue after this call. */
  private balanceMoved(now: number) {
    const state = this.balances.current(now);
    this.notices.balanceMoved(state.plan_credits + state.pack_credits, now);
    this.alarms.handOverNotices();
  }

  private admit<T>(admission: AdmissionRequest, then: () => T): Entered<T> {
    const refused = this.windows.hit(admission.hits, Date.now());
    if (refused) return { admitted: false, ...refused };
    return { admitted: true, value: then(), policies: this.policies.all() };
  }
}
