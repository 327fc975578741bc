// `npm run test:mta`: the email product against real mail server software (test/mta/README.md). Postfix with
// postgrey on loopback listeners, the DNS stand-in, the SMTP sidecar and the local stack (wrangler dev), then singles,
// a stream of singles, batches, a 100-address list and a re-check of greylisted mailboxes against truth.tsv. Prints the
// confusion tables, the 100-address list's answered share and time, sessions per listener from the Postfix log and
// fail2ban's verdict per listener, and exits 1 on what the README lists. Logs kept in test-results/mta/.
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  freePort,
  requireNode22,
  ROOT,
  SIDECAR_SCRIPT,
  startLocalWorker,
  stopProcess,
  waitForHttp,
} from "../../scripts/lib/local.mjs";
import { startDoh } from "../fixtures/doh.ts";
import { startRdap } from "../fixtures/rdap.ts";
import { type Answered, apiClient, labKey } from "./api.ts";
import { dnsZone, HELO_NAME, LISTENERS, listenerOf, MAIL_FROM, readTruth, type TruthRow } from "./lab.ts";
import {
  confusionTable,
  fail2banBans,
  isAnswered,
  type Judged,
  JAIL,
  jailSafeAnswers,
  judgeAll,
  listenerStats,
  statsTable,
  verdictsByListener,
} from "./report.ts";
import { ensurePackages, GREYLIST_DELAY_S, type MailLab, startMailLab } from "./servers.ts";

/** Postfix's default smtpd_soft_error_limit: past it every reply is slowed by smtpd_error_sleep_time (1 s). */
const SOFT_ERROR_LIMIT = 10;
/**
 * Before the log is read: the sidecar keeps an idle session a few seconds for the next lookup, and Postfix logs a
 * session's counts when it ends.
 */
const SETTLE_MS = 10_000;
const SECRET = "mta-lab-sidecar-secret-0123456789";
const ADMIN_TOKEN = "mta-lab-admin-token";
const OUT = join(ROOT, "test-results", "mta");

requireNode22();
const log = (line: string) => console.log(`[mta] ${line}`);
const dir = mkdtempSync(join(tmpdir(), "mta-lab-"));
mkdirSync(OUT, { recursive: true });
const stackLog = openSync(join(OUT, "stack.log"), "w");
const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];
let lab: MailLab | null = null;

async function startStack(rows: TruthRow[]) {
  ensurePackages(log);
  const [smtpPort, postgreyPort, sidecarPort] = [await freePort(), await freePort(), await freePort()];
  lab = await startMailLab({ dir, port: smtpPort, postgreyPort, rows });
  log(`Postfix: ${LISTENERS.length} listeners on 127.0.0.11-${LISTENERS.length + 10}:${smtpPort}, postgrey`);
  const doh = await startDoh(dnsZone());
  const rdap = await startRdap(Object.fromEntries(LISTENERS.flatMap((l) => l.domains.map((d) => [d, "2015-03-01"]))));
  closers.push(doh.close, rdap.close);
  // Its own process group, like the stack's other children, so stopProcess takes it down whole.
  const sidecar = spawn(process.execPath, [SIDECAR_SCRIPT], {
    detached: true,
    stdio: ["ignore", stackLog, stackLog],
    env: {
      ...process.env,
      SIDECAR_SECRET: SECRET,
      SIDECAR_PORT: String(sidecarPort),
      SIDECAR_HOST: "127.0.0.1",
      SIDECAR_ALLOW_LOOPBACK: "1",
      SIDECAR_DOH_URL: doh.url,
      SMTP_PORT: String(smtpPort),
      SMTP_HELO_NAME: HELO_NAME,
      SMTP_MAIL_FROM: MAIL_FROM,
    },
  });
  children.push(sidecar);
  const sidecarUrl = `http://127.0.0.1:${sidecarPort}`;
  await waitForHttp(`${sidecarUrl}/healthz`, { name: "the SMTP sidecar", timeoutMs: 30_000 });
  const { base } = await startLocalWorker({
    persistTo: join(dir, "state"),
    stdio: stackLog,
    track: (child: ChildProcess) => children.push(child),
    vars: {
      ADMIN_TOKEN,
      DOH_URL: doh.url,
      RDAP_BASE_URL: rdap.url,
      SMTP_SIDECAR_URL: sidecarUrl,
      SMTP_SIDECAR_SECRET: SECRET,
    },
  });
  const key = await labKey(base, ADMIN_TOKEN);
  log(`stack up: API ${base}, sidecar ${sidecarUrl}, DNS ${doh.url}`);
  return apiClient(base, key);
}

interface Phase<T> {
  result: T;
  seconds: number;
}

async function phase<T>(name: string, run: () => Promise<T>): Promise<Phase<T>> {
  const started = Date.now();
  const result = await run();
  const seconds = (Date.now() - started) / 1000;
  log(`${name}: ${seconds.toFixed(1)} s`);
  return { result, seconds };
}

/**
 * Postfix's log per listener, each written to test-results/mta/maillog-<listener>: each listener is a server of its
 * own, with its own fail2ban reading only its lines.
 */
function logsByListener(): Map<string, string> {
  const lines = readFileSync(lab!.logFile, "utf8").split("\n");
  const logs = new Map<string, string>();
  for (const { name } of LISTENERS) {
    const file = join(OUT, `maillog-${name}`);
    writeFileSync(file, lines.filter((line) => line.includes(` postfix/${name}/`)).join("\n"));
    logs.set(name, file);
  }
  return logs;
}

const byDomain = (rows: TruthRow[]) => Object.values(Object.groupBy(rows, (r) => r.domain)) as TruthRow[][];

async function main() {
  const rows = readTruth();
  const api = await startStack(rows);
  const of = (set: string) => rows.filter((r) => r.set === set);

  // Singles: one domain's lookups one after another, as a form would send them; domains side by side.
  const singles = await phase("singles", async () =>
    (
      await Promise.all(
        byDomain(of("single")).map(async (group) => {
          const answers: Answered[] = [];
          for (const row of group) answers.push(await api.single(row.address));
          return answers;
        }),
      )
    ).flat(),
  );
  const stream = await phase("stream", async () => {
    const answers: Answered[] = [];
    for (const row of of("stream")) answers.push(await api.single(row.address));
    return answers;
  });
  const lists = await phase("lists", async () =>
    (await Promise.all(byDomain(of("list")).map((group) => api.batch(group.map((r) => r.address))))).flat(),
  );
  const listsEnded = Date.now();
  const list100 = await phase("list100", () => api.bulk(of("list100").map((r) => r.address)));
  // The greylisted mailboxes again, with refresh, once postgrey's delay has passed: the server now answers them.
  await sleep(Math.max(0, listsEnded + (GREYLIST_DELAY_S + 1) * 1000 - Date.now()));
  const greylisted = [...singles.result, ...lists.result]
    .filter((a) => a.answer?.reason === "unverified" && a.answer.smtp_reason === "greylisted")
    .map((a) => rows.find((r) => r.address === a.address)!)
    .filter((row) => listenerOf(row.domain).greylist && !listenerOf(row.domain).catchAll);
  const recheck = await phase("recheck", async () => {
    const answers: Answered[] = [];
    for (const row of greylisted) answers.push(await api.single(row.address, { refresh: true }));
    return answers;
  });
  await sleep(SETTLE_MS);

  const judgedSingles = judgeAll([...of("single"), ...of("stream")], [...singles.result, ...stream.result]);
  const judgedLists = judgeAll([...of("list"), ...of("list100")], [...lists.result, ...list100.result]);
  const judgedRecheck = judgeAll(greylisted, recheck.result);
  const phases = { singles, stream, lists, list100, recheck };
  return report({ rows, judgedSingles, judgedLists, judgedRecheck, phases });
}

/** Prints the figures and returns the exit code: 1 on a wrong verdict, a list under its floor, a ban, a session past
 * Postfix's soft error limit. */
function report(run: {
  rows: TruthRow[];
  judgedSingles: Judged[];
  judgedLists: Judged[];
  judgedRecheck: Judged[];
  phases: Record<string, Phase<Answered[]>>;
}) {
  const { rows, judgedSingles, judgedLists, judgedRecheck, phases } = run;
  const of = (set: string) => rows.filter((r) => r.set === set);
  const judged100 = judgedLists.filter((j) => j.set === "list100");
  const wrong = [...judgedSingles, ...judgedLists, ...judgedRecheck].filter((j) => j.problem);
  const stale = judgedRecheck.filter((j) => !isAnswered(j));
  const answered100 = judged100.filter(isAnswered).length;
  const floor100 = jailSafeAnswers(of("list100"));
  const dishonest100 = judged100.filter((j) => !isAnswered(j) && j.verdict !== "unverified:timeout");
  const batches = judgedLists.filter((j) => j.set === "list");
  const logs = logsByListener();
  const stats = listenerStats(readFileSync(lab!.logFile, "utf8"));
  const bans = new Map([...logs].map(([name, file]) => [name, fail2banBans(file)]));
  const f2b = bans.get("stream")!;
  const maxRefused = Math.max(...[...stats.values()].map((s) => s.maxRefused));
  const withoutQuit = [...stats.values()].reduce((sum, s) => sum + s.withoutQuit, 0);
  const pct = (n: number, of: number) => `${Math.round((n / of) * 100)} %`;

  console.log(`\nSingles (${judgedSingles.length}: ${of("single").length} + a stream of ${of("stream").length})`);
  console.log(confusionTable(judgedSingles));
  console.log(`\nLists (${judgedLists.length}: ${batches.length} in one batch per domain + the 100-address list)`);
  console.log(confusionTable(judgedLists));
  console.log(`\nVerdicts per listener, singles:\n${verdictsByListener(judgedSingles)}`);
  console.log(`Verdicts per listener, lists:\n${verdictsByListener(judgedLists)}`);
  console.log(
    `\nGreylisted mailboxes asked again with refresh after postgrey's ${GREYLIST_DELAY_S} s: ` +
      `${judgedRecheck.length - stale.length} of ${judgedRecheck.length} answered ` +
      `(${judgedRecheck.map((j) => j.verdict).join(", ") || "none greylisted"})`,
  );
  if (wrong.length)
    console.log(`\nWrong (${wrong.length}):\n${wrong.map((j) => `  ${j.address}: ${j.problem}`).join("\n")}`);
  console.log(
    `\n100-address list (40 mailboxes, 60 unknown users, Postfix defaults): answered ${answered100} of 100 ` +
      `(floor ${floor100}: as far as fail2ban's jail lets one pass go) in ${phases.list100!.seconds.toFixed(1)} s; ` +
      `${judged100.filter((j) => j.verdict === "unverified:timeout").length} timeout; credits ` +
      `${judged100.reduce((sum, j) => sum + j.credits, 0)}. Batches: answered ` +
      `${pct(batches.filter(isAnswered).length, batches.length)} of ${batches.length}.`,
  );
  const times = Object.entries(phases).map(([name, p]) => `${name} ${p.seconds.toFixed(1)} s`);
  console.log(`\nPhases: ${times.join(", ")}`);
  console.log(
    `\nPostfix's log per listener, whole run; fail2ban-regex over each listener's lines (${JAIL.filter}, mode = ` +
      `more), jail replayed with maxretry ${JAIL.maxretry}, findtime ${JAIL.findtimeS / 60} min:\n` +
      statsTable(stats, bans),
  );
  console.log(
    `\nfail2ban over the stream of ${of("stream").length} single lookups: ${f2b.matches} matched lines, ` +
      `${f2b.bans} bans${f2b.firstBanAfter ? ` (first at matched line ${f2b.firstBanAfter})` : ""}`,
  );

  const failures = [
    ...(wrong.length ? [`${wrong.length} wrong verdicts`] : []),
    ...(answered100 < floor100 ? [`100-address list answered ${answered100} < floor ${floor100}`] : []),
    ...(stale.length ? [`${stale.length} greylisted mailboxes still unanswered with refresh after the delay`] : []),
    ...(dishonest100.length ? [`100-address list: ${dishonest100.length} unanswered other than timeout`] : []),
    ...(maxRefused >= SOFT_ERROR_LIMIT
      ? [`a session had ${maxRefused} commands refused (Postfix's soft error limit: ${SOFT_ERROR_LIMIT})`]
      : []),
    ...(withoutQuit ? [`${withoutQuit} sessions ended by the prober without QUIT`] : []),
    ...(f2b.bans ? [`${f2b.bans} fail2ban bans over the stream of single lookups`] : []),
  ];
  console.log(failures.length ? `\nFAILED: ${failures.join("; ")}` : "\nPASSED");
  return failures.length ? 1 : 0;
}

async function cleanup() {
  for (const child of children.reverse()) await stopProcess(child);
  await lab?.stop();
  await Promise.all(closers.map((close) => close().catch(() => {})));
  if (lab) copyFileSync(lab.logFile, join(OUT, "maillog"));
  closeSync(stackLog);
  rmSync(dir, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => void cleanup().finally(() => process.exit(130)));
try {
  process.exitCode = await main();
} catch (error) {
  console.error(`[mta] ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
} finally {
  await cleanup().catch((error) => console.error(`[mta] cleanup: ${error}`));
  log(`took ${Math.round(performance.now() / 1000)} s; logs in ${OUT}`);
}
