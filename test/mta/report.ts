// Judging the answers against the truth, and reading what the mail server saw: confusion tables, sessions per listener
// from the Postfix log, and fail2ban's stock postfix jail replayed over it.
import { spawnSync } from "node:child_process";
import type { Answered } from "./api.ts";
import { listenerOf, type Truth, type TruthRow } from "./lab.ts";

/** The fields of an email answer the lab reads (docs/email.md). */
export interface EmailAnswer {
  deliverable: string;
  reason: string | null;
  smtp_reason: string | null;
  mailbox_exists: boolean | null;
  catch_all: boolean | null;
}
export interface Judged extends TruthRow {
  answer: EmailAnswer | null;
  credits: number;
  verdict: string;
  problem: string | null;
}

/** The one right verdict per truth; `unverified` (any smtp_reason) is always allowed, as long as it is free. */
const RIGHT: Record<Truth, string> = {
  exists: "deliverable",
  not: "not_found",
  full: "full",
  disabled: "disabled",
  "catch-all-unknown": "catch_all",
};

export function verdictOf(answer: EmailAnswer | null): string {
  if (!answer) return "error";
  if (answer.deliverable === "deliverable") return "deliverable";
  const short: Record<string, string> = {
    catch_all: "catch_all",
    mailbox_full: "full",
    mailbox_not_found: "not_found",
    mailbox_disabled: "disabled",
  };
  if (answer.reason && short[answer.reason]) return short[answer.reason] as string;
  if (answer.reason === "unverified") return `unverified:${answer.smtp_reason ?? "-"}`;
  return `${answer.deliverable}/${answer.reason ?? "-"}`;
}

/** The row's truth as the table shows it: an existing mailbox of a catch-all domain is its own row. */
export const truthLabel = (row: TruthRow) =>
  row.truth === "exists" && listenerOf(row.domain).catchAll ? "exists (catch-all)" : row.truth;

/**
 * Why an answer is wrong, or null: a verdict other than the truth's (an existing mailbox of a catch-all can only be
 * `catch_all`), `mailbox_exists: true` on a catch-all, an unknown user charged, an uncertain answer charged.
 */
export function judge(row: TruthRow, answer: EmailAnswer | null, credits: number): Judged {
  const verdict = verdictOf(answer);
  const catchAll = listenerOf(row.domain).catchAll === true;
  const right = catchAll ? "catch_all" : RIGHT[row.truth];
  let problem: string | null = null;
  if (verdict.startsWith("unverified:")) problem = credits > 0 ? `unverified but charged ${credits}` : null;
  else if (verdict !== right) problem = `${verdict}, truth ${truthLabel(row)}`;
  if (!problem && catchAll && answer?.mailbox_exists === true) problem = "mailbox_exists true on a catch-all";
  if (row.truth === "not" && credits > 0) problem = `unknown user charged ${credits}`;
  return { ...row, answer, credits, verdict, problem };
}

/** Each row judged by the answer given for its address (none: an error). */
export function judgeAll(rows: TruthRow[], answers: Answered[]): Judged[] {
  const byAddress = new Map(answers.map((a) => [a.address, a]));
  return rows.map((row) => {
    const got = byAddress.get(row.address);
    return judge(row, got?.answer ?? null, got?.credits ?? 0);
  });
}

export const isAnswered = (j: Judged) => j.verdict !== "error" && !j.verdict.startsWith("unverified:");

const VERDICT_ORDER = ["deliverable", "catch_all", "full", "not_found", "disabled"];
const TRUTH_ORDER = ["exists", "exists (catch-all)", "not", "full", "disabled", "catch-all-unknown"];

/** truth x verdict counts, as fixed-width text; the last column counts wrong answers. */
export function confusionTable(judged: Judged[]): string {
  const verdicts = [...new Set(judged.map((j) => j.verdict))].sort(
    (a, b) => rank(VERDICT_ORDER, a) - rank(VERDICT_ORDER, b) || a.localeCompare(b),
  );
  const truths = [...new Set(judged.map(truthLabel))].sort((a, b) => rank(TRUTH_ORDER, a) - rank(TRUTH_ORDER, b));
  const header = ["truth \\ verdict", ...verdicts, "wrong"];
  const rows = truths.map((truth) => {
    const of = judged.filter((j) => truthLabel(j) === truth);
    return [truth, ...verdicts.map((v) => count(of, (j) => j.verdict === v)), count(of, (j) => j.problem !== null)];
  });
  return table([header, ...rows]);
}

const rank = (order: string[], value: string) => (order.includes(value) ? order.indexOf(value) : order.length);
const count = <T>(items: T[], test: (item: T) => boolean) => String(items.filter(test).length);

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) => r.map((cell, i) => (i ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  "))
    .join("\n");
}

export interface ListenerStats {
  sessions: number;
  transactions: number;
  rcpts: number;
  withoutQuit: number;
  rejects: number;
  limits: number;
  /** The most commands one session had refused (Postfix's error count; its soft limit is 10, its hard limit 20). */
  maxRefused: number;
}

/**
 * Per listener (its syslog_name), from Postfix's own accounting: each session's `disconnect from ... ehlo=1 mail=2
 * rcpt=5/9 rset=1 quit=1` line (commands accepted/sent), RCPT rejections, and anvil and error limits hit (`Connection
 * rate limit exceeded`, `too many errors`, per-client recipient rate).
 */
export function listenerStats(log: string): Map<string, ListenerStats> {
  const stats = new Map<string, ListenerStats>();
  const of = (name: string) => {
    if (!stats.has(name))
      stats.set(name, { sessions: 0, transactions: 0, rcpts: 0, withoutQuit: 0, rejects: 0, limits: 0, maxRefused: 0 });
    return stats.get(name)!;
  };
  for (const line of log.split("\n")) {
    const match = / postfix\/(\w+)\/smtpd\[\d+\]: (.*)$/.exec(line);
    if (!match) continue;
    const [, name = "", message = ""] = match;
    const s = of(name);
    const total = (command: string) => Number(new RegExp(`\\b${command}=(?:\\d+/)?(\\d+)`).exec(message)?.[1] ?? 0);
    if (message.startsWith("disconnect from ")) {
      s.sessions += 1;
      s.transactions += total("mail");
      s.rcpts += total("rcpt");
      // A session that spoke and left without QUIT (`commands=0/0` is a connection the server refused at once).
      if (!/\bquit=1\b/.test(message) && !/\bcommands=0\/0$/.test(message)) s.withoutQuit += 1;
      const refused = [...message.matchAll(/\b(?!commands)\w+=(\d+)\/(\d+)/g)].map((m) => Number(m[2]) - Number(m[1]));
      s.maxRefused = Math.max(
        s.maxRefused,
        refused.reduce((sum, n) => sum + n, 0),
      );
    } else if (/reject: RCPT from/.test(message)) s.rejects += 1;
    if (/rate limit exceeded|too many errors|too many recipients from/i.test(message)) s.limits += 1;
  }
  return stats;
}

export function statsTable(stats: Map<string, ListenerStats>, bans: Map<string, { matches: number; bans: number }>) {
  const rows = [...stats].map(([name, s]) => [
    name,
    String(s.sessions),
    String(s.transactions),
    String(s.rcpts),
    s.sessions ? (s.rcpts / s.sessions).toFixed(1) : "-",
    String(s.withoutQuit),
    String(s.rejects),
    String(s.limits),
    String(s.maxRefused),
    String(bans.get(name)?.matches ?? "-"),
    String(bans.get(name)?.bans ?? "-"),
  ]);
  const header = ["listener", "sessions", "MAIL", "RCPT", "RCPT/session", "no QUIT", "rejected", "limits"];
  return table([[...header, "max refused", "f2b lines", "bans"], ...rows]);
}

/**
 * The floor of a one-domain list's answered share: what a prober can answer in one pass without fail2ban's stock jail
 * banning it. maxretry - 1 refused RCPTs per server address (the first is the random catch-all address), so the list
 * in order can be answered up to and with its (maxretry - 2)-th unknown user; after that a safe prober must stop.
 */
export function jailSafeAnswers(rows: TruthRow[]): number {
  const budget = JAIL.maxretry - 2;
  let unknown = 0;
  for (const [index, row] of rows.entries()) {
    if (row.truth === "not") unknown += 1;
    if (unknown === budget) return index + 1;
  }
  return rows.length;
}

/** Verdict counts per listener, for the labels the confusion table folds together (`blocked` vs `greylisted`). */
export function verdictsByListener(judged: Judged[]): string {
  const lines = Object.entries(Object.groupBy(judged, (j) => listenerOf(j.domain).name)).map(([name, of = []]) => {
    const counts = Object.entries(Object.groupBy(of, (j) => j.verdict)).map(([v, js = []]) => `${v} ${js.length}`);
    return `  ${name.padEnd(10)} ${counts.join(", ")}`;
  });
  return lines.join("\n");
}

/** fail2ban's stock jail for postfix: the filter's default `mode = more`, maxretry 5, findtime 10 minutes. */
export const JAIL = { filter: "/etc/fail2ban/filter.d/postfix.conf", maxretry: 5, findtimeS: 600, bantimeS: 600 };

/**
 * Runs `fail2ban-regex <log> <filter>` and replays the jail over the matched lines' times, per client address: a ban
 * when maxretry failures fall within findtime; a banned client's failures during bantime are not counted again.
 */
export function fail2banBans(logFile: string): JailReplay {
  const run = spawnSync("fail2ban-regex", ["-o", "row", logFile, JAIL.filter], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`fail2ban-regex failed: ${run.stderr || run.stdout}`);
  const hits = [...run.stdout.matchAll(/^\['([^']+)',\s*([\d.]+)/gm)].map((m) => ({ ip: m[1]!, at: Number(m[2]) }));
  return replayJail(hits);
}

export interface JailReplay {
  matches: number;
  bans: number;
  /** Which matched line (1-based) brought the first ban. */
  firstBanAfter: number | null;
}

/** The jail over matched lines (client address, Unix time in seconds), in log order. */
export function replayJail(hits: { ip: string; at: number }[]): JailReplay {
  let bans = 0;
  let firstBanAfter: number | null = null;
  const byIp = new Map<string, { times: number[]; bannedUntil: number }>();
  for (const [index, hit] of hits.entries()) {
    const state = byIp.get(hit.ip) ?? { times: [], bannedUntil: 0 };
    byIp.set(hit.ip, state);
    if (hit.at < state.bannedUntil) continue;
    state.times = [...state.times.filter((t) => hit.at - t < JAIL.findtimeS), hit.at];
    if (state.times.length >= JAIL.maxretry) {
      bans += 1;
      firstBanAfter ??= index + 1;
      state.times = [];
      state.bannedUntil = hit.at + JAIL.bantimeS;
    }
  }
  return { matches: hits.length, bans, firstBanAfter };
}
