import { utcDay } from "../../src/engines/credits/plans";

/**
 * The account's mail settings and the mail-worthy events its money decides: the balance falling below the account's
 * threshold, and a key's daily cap stopping work. The object sees both at the moment they happen (a settle, a hold),
 * so detecting them costs the request nothing. An event is written to this object's storage in the same step as the
 * money change (an outbox), then handed to the queue after the call answered (src/engines/mail/notices.ts mails it);
 * the alarm hands over what a failed send left.
 */
export interface MailSettings {
  /** Mail the members when the balance (plan + pack credits) falls below this; null: never. */
  low_balance_threshold: number | null;
  /** Mail the members when a bulk run of the account finishes. */
  bulk_finished_emails: boolean;
}

export type Notice =
  | { kind: "low_balance"; id: string; threshold: number; balance: number; at: number }
  | { kind: "key_spend_cap"; id: string; keyId: string; cap: number; day: string; at: number };

export type NoticeMessage = { type: "mail_notice"; accountId: string; notice: Notice };

const CAP_NOTICE_DAYS = 2;

export class Notices {
  private cached: (MailSettings & { warned: boolean }) | null = null;
  /** Whether notices wait to be handed over: kept in memory, so a hold asks storage nothing when none do. */
  private waiting: boolean;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS mail_settings (id INTEGER PRIMARY KEY CHECK (id = 1), low_balance_threshold INTEGER,
        bulk_finished_emails INTEGER NOT NULL DEFAULT 0, low_balance_warned INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE IF NOT EXISTS notices (id TEXT PRIMARY KEY, at INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS cap_notices (key_id TEXT NOT NULL, day TEXT NOT NULL, PRIMARY KEY (key_id, day));
    `);
    this.waiting = sql.exec("SELECT 1 FROM notices LIMIT 1").toArray().length > 0;
  }

  get hasPending(): boolean {
    return this.waiting;
  }

  settings(): MailSettings {
    const { low_balance_threshold, bulk_finished_emails } = this.current();
    return { low_balance_threshold, bulk_finished_emails };
  }

  /**
   * Changes the settings. A new threshold starts a new crossing: the next settle that leaves the balance below it
   * warns, even if an earlier threshold had warned already.
   */
  set(patch: Partial<MailSettings>): MailSettings {
    const next = { ...this.current(), ...patch };
    if (patch.low_balance_threshold !== undefined) next.warned = false;
    this.sql.exec(
      `INSERT INTO mail_settings (id, low_balance_threshold, bulk_finished_emails, low_balance_warned) VALUES (1, ?,
       ?, ?) ON CONFLICT (id) DO UPDATE SET low_balance_threshold = excluded.low_balance_threshold,
       bulk_finished_emails = excluded.bulk_finished_emails, low_balance_warned = excluded.low_balance_warned`,
      next.low_balance_threshold,
      next.bulk_finished_emails ? 1 : 0,
      next.warned ? 1 : 0,
    );
    this.cached = next;
    return this.settings();
  }

  /**
   * After the balance moved: below the threshold for the first time since it was last at or above it (or since the
   * threshold was set) records one warning; back at or above it re-arms the next one. Once per crossing, however many
   * lookups settle below it.
   */
  balanceMoved(balance: number, now: number): void {
    const s = this.current();
    if (s.low_balance_threshold === null) return;
    const below = balance < s.low_balance_threshold;
    if (below === s.warned) return;
    this.sql.exec("UPDATE mail_settings SET low_balance_warned = ?", below ? 1 : 0);
    this.cached = { ...s, warned: below };
    if (below)
      this.record({
        kind: "low_balance",
        id: crypto.randomUUID(),
        threshold: s.low_balance_threshold,
        balance,
        at: now,
      });
  }

  /** A key's daily cap refused or cut short a hold: one notice per key per UTC day. */
  capReached(keyId: string, cap: number, now: number): void {
    const day = utcDay(now);
    const fresh =
      this.sql.exec("INSERT OR IGNORE INTO cap_notices (key_id, day) VALUES (?, ?)", keyId, day).rowsWritten > 0;
    if (!fresh) return;
    this.sql.exec("DELETE FROM cap_notices WHERE day < ?", utcDay(now - CAP_NOTICE_DAYS * 86_400_000));
    this.record({ kind: "key_spend_cap", id: `${keyId}:${day}`, keyId, cap, day, at: now });
  }

  pending(): Notice[] {
    return this.sql
      .exec<{ body: string }>("SELECT body FROM notices ORDER BY at")
      .toArray()
      .map((r) => JSON.parse(r.body) as Notice);
  }

  handedOver(ids: string[]): void {
    for (const id of ids) this.sql.exec("DELETE FROM notices WHERE id = ?", id);
    this.waiting = this.sql.exec("SELECT 1 FROM notices LIMIT 1").toArray().length > 0;
  }

  private record(notice: Notice): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO notices (id, at, body) VALUES (?, ?, ?)",
      notice.id,
      notice.at,
      JSON.stringify(notice),
    );
    this.waiting = true;
  }

  private current(): MailSettings & { warned: boolean } {
    if (this.cached) return this.cached;
    const row = this.sql
      .exec<{ low_balance_threshold: number | null; bulk_finished_emails: number; low_balance_warned: number }>(
        "SELECT * FROM mail_settings",
      )
      .toArray()[0];
    this.cached = {
      low_balance_threshold: row?.low_balance_threshold ?? null,
      bulk_finished_emails: row?.bulk_finished_emails === 1,
      warned: row?.low_balance_warned === 1,
    };
    return this.cached;
  }
}
