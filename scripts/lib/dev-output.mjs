// What `npm run dev` shows, and what it keeps in its log file (.wrangler/dev.log, rewritten at each start). Every
// line wrangler, the sidecars, the migrations and the dataset loads print goes to the log, with the seconds since the
// start. The terminal gets dev's own progress lines, the banner, and anything that looks like a failure (wrangler's
// ✘ [ERROR] and ▲ [WARNING] blocks, a stack, whatever a sidecar writes to stderr). Once the banner is out
// (`running()`), wrangler's request lines and the Worker's logs are shown as `wrangler dev` shows them, minus the bulk:
// the bindings table it prints again on each reload or reconnection, the dataset loads' row posts, and repeated
// outside-fetch failures (scripts/lib/quiet-failures.mjs).
import { mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { OUTSIDE_FAILURE_NOTICE, outsideFailureFilter } from "./quiet-failures.mjs";

const ANSI = /\x1b\[[0-9;]*m/g;
/** The first line of a failure: wrangler's marks, a JavaScript error or a Node error code. */
const FAILURE = /\[(ERROR|WARNING)\]|^\s*[✘▲] |^\s*(\w*Error|error)\b[:[ ]|\bERR_[A-Z_]+/;
/** A line that continues a failure: indented (details, a stack) or blank inside the block. */
const CONTINUES = /^(\s|$)/;
const BINDINGS = /^Your Worker has access to the following bindings:/;
/** wrangler's note (then the bindings again) when its runtime reconnects now and then: nothing to act on. */
const RECONNECTED = /^⎔ Connection status updated/;
/**
 * The operator routes the dataset loads post to (thousands of lines while the IP tables load): a product's dataset
 * routes are `/admin/v1/{its datasets}/{name}/...`, so any path that deep but an account's is one, whatever the
 * product.
 */
const DATASET_LOADS = /^\[wrangler:info\] \w+ \/admin\/v1\/(?!accounts\/)[\w-]+\/[\w.-]+\//;
const RECENT = 60;

/** Opens the log file at `logFile` and answers the functions that write to it and to the terminal. */
export function devOutput(logFile) {
  mkdirSync(dirname(logFile), { recursive: true });
  const fd = openSync(logFile, "w");
  const started = performance.now();
  const recent = [];
  let running = false;
  const log = (line) => {
    const plain = line.replace(ANSI, "");
    // Synchronous: the log stays complete when dev exits at once (a failed start, a second Ctrl-C).
    writeSync(fd, `${((performance.now() - started) / 1000).toFixed(1).padStart(6)} ${plain}\n`);
    recent.push(plain);
    if (recent.length > RECENT) recent.shift();
  };
  const say = (line) => (log(line), process.stdout.write(`${line}\n`));
  const warn = (line) => (log(line), process.stderr.write(`${line}\n`));

  /** Routes one output stream of a child: all of it to the log, to `terminal` as described above. */
  const follow = (input, terminal, { stderr = false } = {}) => {
    const outside = outsideFailureFilter();
    let failing = false;
    let bindings = false;
    createInterface({ input }).on("line", (line) => {
      log(line);
      const plain = line.replace(ANSI, "");
      const verdict = outside(plain);
      if (verdict !== "pass") {
        if (verdict === "notice") terminal.write(`${OUTSIDE_FAILURE_NOTICE}\n`);
        return;
      }
      if (BINDINGS.test(plain)) bindings = true;
      if (bindings) {
        bindings = plain.trim() !== "";
        return;
      }
      failing = FAILURE.test(plain) || (failing && CONTINUES.test(plain));
      const show = failing || stderr || (running && !DATASET_LOADS.test(plain) && !RECONNECTED.test(plain));
      if (show) terminal.write(`${line}\n`);
    });
  };

  let partial = "";
  return {
    logFile,
    log,
    say,
    warn,
    follow,
    /** For runWrangler's `output`: chunks of text, logged line by line. */
    chunk: (text) => {
      const lines = (partial + text).split(/\r?\n/);
      partial = lines.pop();
      for (const line of lines) log(line);
    },
    /** The banner is out: from now on wrangler's request lines and the Worker's logs are shown too. */
    running: () => (running = true),
    /** The last lines logged, for a start that failed: what the terminal did not show may say why. */
    tail: (n = 25) => recent.slice(-n),
  };
}
