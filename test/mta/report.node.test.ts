// The lab's own judging (test/mta/report.ts), so `npm run test:mta` cannot pass or fail by a mistake of its reader:
// the verdict rules, Postfix's session counts, the fail2ban jail replay and the list floor.
import { describe, expect, it } from "vitest";
import { postfixMaps, readTruth, type TruthRow } from "./lab.ts";
import { type EmailAnswer, jailSafeAnswers, judge, listenerStats, replayJail } from "./report.ts";

const row = (address: string, truth: TruthRow["truth"]): TruthRow => ({
  address,
  domain: address.split("@")[1]!,
  truth,
  set: "single",
});
const answer = (deliverable: string, reason: string | null, more: Partial<EmailAnswer> = {}): EmailAnswer => ({
  deliverable,
  reason,
  smtp_reason: null,
  mailbox_exists: null,
  catch_all: null,
  ...more,
});

describe("judge", () => {
  it("takes the truth's verdict or a free unverified, and nothing else", () => {
    expect(judge(row("a@stock.example", "exists"), answer("deliverable", null), 1).problem).toBeNull();
    expect(judge(row("a@stock.example", "not"), answer("undeliverable", "mailbox_not_found"), 0).problem).toBeNull();
    const greylisted = answer("risky", "unverified", { smtp_reason: "greylisted" });
    expect(judge(row("a@stock.example", "exists"), greylisted, 0).problem).toBeNull();
    expect(judge(row("a@stock.example", "exists"), greylisted, 1).problem).toBe("unverified but charged 1");
    expect(judge(row("a@stock.example", "exists"), answer("undeliverable", "mailbox_not_found"), 0).problem).toBe(
      "not_found, truth exists",
    );
    expect(judge(row("a@stock.example", "full"), answer("deliverable", null), 1).problem).toBe(
      "deliverable, truth full",
    );
  });

  it("never lets a catch-all's address be deliverable or a confirmed mailbox", () => {
    expect(judge(row("a@catchall.example", "exists"), answer("deliverable", null), 1).problem).toBe(
      "deliverable, truth exists (catch-all)",
    );
    expect(judge(row("a@catchall.example", "exists"), answer("risky", "catch_all"), 1).problem).toBeNull();
    const confirmed = answer("risky", "catch_all", { mailbox_exists: true });
    expect(judge(row("a@catchall.example", "catch-all-unknown"), confirmed, 1).problem).toBe(
      "mailbox_exists true on a catch-all",
    );
  });

  it("counts an unknown user charged as wrong even with the right verdict", () => {
    const notFound = answer("undeliverable", "mailbox_not_found");
    expect(judge(row("a@stock.example", "not"), notFound, 1).problem).toBe("unknown user charged 1");
    expect(judge(row("a@stock.example", "not"), null, 0).verdict).toBe("error");
  });
});

describe("listenerStats", () => {
  it("reads Postfix's disconnect counts: refused commands, QUIT, connections refused at once", () => {
    const log = [
      "Nov 29 07:37:20 mx postfix/stock/smtpd[1]: disconnect from localhost[127.0.0.1] ehlo=1 mail=1 rcpt=8/21 " +
        "rset=1 commands=11/24",
      "Nov 29 07:37:21 mx postfix/stock/smtpd[2]: disconnect from localhost[127.0.0.1] ehlo=1 mail=2 rcpt=3/4 quit=1 " +
        "commands=7/8",
      "Nov 29 07:37:22 mx postfix/conn/smtpd[3]: disconnect from localhost[127.0.0.1] commands=0/0",
      "Nov 29 07:37:22 mx postfix/conn/smtpd[3]: warning: Connection rate limit exceeded: 7 from localhost[127.0.0.1]",
    ].join("\n");
    const stats = listenerStats(log);
    expect(stats.get("stock")).toEqual({
      sessions: 2,
      transactions: 3,
      rcpts: 25,
      withoutQuit: 1,
      rejects: 0,
      limits: 0,
      maxRefused: 13,
    });
    expect(stats.get("conn")).toMatchObject({ sessions: 1, withoutQuit: 0, limits: 1 });
  });
});

describe("replayJail", () => {
  const at = (...seconds: number[]) => seconds.map((s) => ({ ip: "127.0.0.1", at: 1_000 + s }));

  it("bans at the 5th matched line within 10 minutes, not at the 4th, nor over a longer span", () => {
    expect(replayJail(at(0, 1, 2, 3))).toEqual({ matches: 4, bans: 0, firstBanAfter: null });
    expect(replayJail(at(0, 1, 2, 3, 599))).toEqual({ matches: 5, bans: 1, firstBanAfter: 5 });
    expect(replayJail(at(0, 200, 400, 599, 600))).toMatchObject({ bans: 0 });
  });

  it("counts nothing more while the client is banned", () => {
    expect(replayJail(at(0, 1, 2, 3, 4, 5, 6, 7, 8, 9))).toMatchObject({ bans: 1 });
  });
});

describe("the truth and what Postfix is given", () => {
  it("floors a one-domain list at its 3rd unknown user (the random address is the 4th refusal)", () => {
    const list = ["exists", "not", "exists", "not", "not", "exists"] as const;
    expect(jailSafeAnswers(list.map((truth, i) => row(`u${i}@list.example`, truth)))).toBe(5);
  });

  it("gives Postfix every mailbox and no unknown user", () => {
    const rows = readTruth();
    const maps = postfixMaps(rows);
    const listed = (map: string, address: string) => maps[map]!.split("\n").some((l) => l.startsWith(`${address} `));
    for (const r of rows.filter((r) => r.truth === "not")) expect(listed("mailboxes", r.address)).toBe(false);
    for (const r of rows.filter((r) => r.truth === "full" || r.truth === "disabled"))
      expect(listed("recipient-access", r.address)).toBe(true);
    expect(rows.filter((r) => r.set === "list100")).toHaveLength(100);
    expect(rows.filter((r) => r.set === "list100" && r.truth === "not")).toHaveLength(60);
  });
});
