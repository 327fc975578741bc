// @ts-check
// What every bench prints beside its figures, and the check `npm run bench:smoke` relies on: the commit and the load
// average the figures were measured at, and a verdict on the run. A figure that is missing, zero or not a number, or
// any work the API refused or that failed, fails the run: a bench that measured refusals or nothing must not print a
// figure as if it were one.
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { ROOT } from "../../scripts/lib/local.mjs";

/** The line `npm run bench:smoke` looks for: a bench that never reached its check has not passed. */
export const CHECK_MARK = "[bench:check]";

/** True under `npm run bench:smoke` (BENCH_SMOKE=1): every bench then runs at a tiny size. */
export const SMOKE = process.env.BENCH_SMOKE === "1";

/**
 * A size knob: `BENCH_<name>` when set, else `tiny` under bench:smoke, else `full`.
 * @param {string} name the environment variable, e.g. "BENCH_CALLS"
 * @param {number} full
 * @param {number} tiny
 */
export function size(name, full, tiny) {
  const set = process.env[name];
  if (set !== undefined && set !== "") return Number(set);
  return SMOKE ? tiny : full;
}

/** `git rev-parse --short HEAD`, with `+dirty` when the work tree has changes; "unknown" outside a repository. */
export function commit() {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    return dirty.trim() ? `${head}+dirty` : head;
  } catch {
    return "unknown";
  }
}

/** The 1, 5 and 15 minute load averages, two decimals each. */
export function loadAverage() {
  return loadavg().map((n) => Math.round(n * 100) / 100);
}

/** Where and when the figures were measured: the commit and the load average. */
export function commitAndLoad() {
  const [one, five, fifteen] = loadAverage();
  return `commit ${commit()}, load average ${one} ${five} ${fifteen}`;
}

/** One line naming where and when the figures were measured, and at which size. */
export function measuredAt() {
  return `${commitAndLoad()}, ${SMOKE ? "smoke size" : "full size"}`;
}

/**
 * Prints the commit and load average with the run's headline figures and checks them: each must be a finite
 * number above zero, and `refused` and `errored` (counts of work the API turned away or that failed) must be 0.
 * Returns the exit code for main(): 0 when the run may be believed, 1 otherwise (each reason printed).
 * @param {{ bench: string, figures: Record<string, number | null | undefined>, refused?: number,
 *   errored?: number }} run
 */
export function checkRun({ bench, figures, refused = 0, errored = 0 }) {
  const problems = [];
  for (const [name, value] of Object.entries(figures)) {
    if (typeof value !== "number" || !Number.isFinite(value)) problems.push(`${name} is missing (${value})`);
    else if (value <= 0) problems.push(`${name} is ${value}`);
  }
  if (Object.keys(figures).length === 0) problems.push("no figure was reported");
  if (!(refused >= 0)) problems.push(`refused count is missing (${refused})`);
  else if (refused > 0) problems.push(`${refused} refused`);
  if (!(errored >= 0)) problems.push(`errored count is missing (${errored})`);
  else if (errored > 0) problems.push(`${errored} errored`);
  const shown = Object.entries(figures)
    .map(([name, value]) => `${name} ${value}`)
    .join(", ");
  console.log(`\n[bench] ${bench}: ${shown}; refused ${refused}, errored ${errored}`);
  console.log(`[bench] ${measuredAt()}`);
  if (problems.length) {
    console.log(`${CHECK_MARK} ${bench} FAILED: ${problems.join("; ")}`);
    return 1;
  }
  console.log(`${CHECK_MARK} ${bench} ok`);
  return 0;
}

/**
 * Refused and errored counts from load.mjs route summaries (their `statuses`): a 4xx is work the API turned away
 * (a rate limit, credits, validation), anything else that is not 200 an error.
 * @param {{ statuses?: Record<string, number> }[]} summaries
 */
export function statusCounts(summaries) {
  let refused = 0;
  let errored = 0;
  for (const s of summaries)
    for (const [status, n] of Object.entries(s?.statuses ?? {})) {
      if (status === "200") continue;
      if (status.startsWith("4")) refused += n;
      else errored += n;
    }
  return { refused, errored };
}
