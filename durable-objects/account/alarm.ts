import { database } from "../../src/db/client";
import { recordUnfinished } from "../../src/db/request-log";
import type { NoticeMessage, Notices } from "./notices";
import type { Reservations } from "./reservations";

/** A reservation not settled within this time is released by the alarm (its Worker died mid-request). */
export const RESERVATION_TTL_MS = 15 * 60 * 1000;
/** A notice whose queue send failed is tried again this much later (by the alarm). */
const NOTICE_RETRY_MS = 60_000;

/**
 * The account object's one alarm and what it is for: releasing holds whose Worker never settled them, and handing
 * recorded notices to the queue (again, when a send failed). Kept apart from the money: it only schedules and sends.
 */
export class AccountAlarm {
  /** When the alarm is set for, as far as this instance knows (saves a storage read on every hold). */
  private alarmAt: number | null | undefined;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    private readonly parts: { notices: Notices; reservations: Reservations },
  ) {}

  /** A hold was made at `now`: the alarm must ring by the time it expires (unless it is set already). */
  async arm(now: number): Promise<void> {
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null) return;
    this.alarmAt = now + RESERVATION_TTL_MS;
    await this.ctx.storage.setAlarm(this.alarmAt);
  }

  /**
   * Releases reservations whose Worker never settled them, and records each such HTTP request as free (unless its
   * Worker recorded it after all). The records are written first: if that fails the alarm is retried, holds included.
   */
  async ring(): Promise<void> {
    const { notices, reservations } = this.parts;
    await this.sendNotices();
    const now = Date.now();
    const cutoff = now - RESERVATION_TTL_MS;
    await recordUnfinished(database(this.env), reservations.unfinished(cutoff));
    reservations.expire(cutoff, now);
    const oldest = reservations.oldest();
    this.alarmAt = oldest === null ? null : oldest + RESERVATION_TTL_MS;
    // Notices a failed queue send left are tried again within a minute.
    if (notices.hasPending) this.alarmAt = Math.min(this.alarmAt ?? Infinity, now + NOTICE_RETRY_MS);
    if (this.alarmAt !== null) await this.ctx.storage.setAlarm(this.alarmAt);
  }

  /**
   * Recorded notices go to the queue after the call answered (never awaited by the caller: no round trip is added to
   * the request that caused them). The account's id is this object's name (the object is addressed by name).
   */
  handOverNotices(): void {
    if (this.parts.notices.hasPending) this.ctx.waitUntil(this.sendNotices());
  }

  private async sendNotices(): Promise<void> {
    const { notices } = this.parts;
    const pending = notices.pending();
    const accountId = this.ctx.id.name;
    if (!pending.length || !accountId) return;
    try {
      await this.env.JOBS.sendBatch(
        pending.map((notice): { body: NoticeMessage } => ({ body: { type: "mail_notice", accountId, notice } })),
      );
      notices.handedOver(pending.map((n) => n.id));
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
}
