// @ts-check
// What a bench holds while it runs (child processes, servers and stand-ins, log files, temp dirs), so that one place
// lets go of it all: runBench (bench/lib/harness.mjs) calls release() when main() ends, throws, is interrupted or
// runs out of time. Newest first, because later things use earlier ones (wrangler writes to its log and works in its
// temp dir, the sidecar dials the SMTP stand-in); each step on its own, so one that fails is reported and the rest
// still run; and once, so a signal during the release waits for it instead of starting a second one.
import { closeSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isRunning, signalTree, stopProcess } from "../../scripts/lib/local.mjs";

/** @typedef {import("node:child_process").ChildProcess} ChildProcess */
/** @typedef {{ close: (...args: any[]) => unknown }} Closable */
/** @typedef {{ what: unknown, release: () => unknown, onExit?: () => void }} Hold */

/**
 * Closes `x`, whichever way its close() reports being done: a callback when it takes one (node:http and smtp-server
 * servers), else what it returns (a promise: our stand-ins, MCP clients, a browser).
 * @param {Closable} x
 */
const close = (x) =>
  x.close.length > 0
    ? new Promise((resolve, reject) => x.close((err) => (err ? reject(err) : resolve(undefined))))
    : x.close();

const removeDir = (path) => rmSync(path, { recursive: true, force: true });

export function resources() {
  /** @type {Hold[]} */
  const holds = [];
  /** @type {Promise<void> | null} */
  let releasing = null;
  /** @template T @param {T} what @param {() => unknown} release @param {() => void} [onExit] @returns {T} */
  const hold = (what, release, onExit) => {
    holds.push({ what, release, onExit });
    return what;
  };
  const releaseOne = async (/** @type {Hold} */ h) => {
    try {
      await h.release();
    } catch (err) {
      console.error(`[bench] cleanup: ${err instanceof Error ? err.message : err}`);
    }
  };
  const forget = (/** @type {Hold} */ h) => {
    const at = holds.lastIndexOf(h);
    if (at >= 0) holds.splice(at, 1);
  };
  // Each one leaves the list only once released, so an exit meanwhile (abandon) still reaches it.
  const drain = async () => {
    while (holds.length) {
      const h = holds[holds.length - 1];
      await releaseOne(h);
      forget(h);
    }
  };
  /** A directory, removed with everything in it. */
  const dir = (/** @type {string} */ path) =>
    hold(
      path,
      () => removeDir(path),
      () => removeDir(path),
    );
  return {
    /** A child process (leading its own group): SIGTERM, then SIGKILL to the group (stopProcess). */
    process: (/** @type {ChildProcess} */ child) =>
      hold(
        child,
        () => stopProcess(child),
        () => isRunning(child) && signalTree(child, "SIGKILL"),
      ),
    /** An open file descriptor (a child's log). */
    fd: (/** @type {number} */ fd) => hold(fd, () => closeSync(fd)),
    /**
     * Anything with a close(): a server, a stand-in, a client.
     * @template {Closable} T
     * @param {T} x
     * @returns {T}
     */
    closer: (x) => hold(x, () => close(x)),
    dir,
    /** A new temp directory named `prefix`..., held like dir(). */
    tempDir: (/** @type {string} */ prefix) => dir(mkdtempSync(join(tmpdir(), prefix))),
    /** Releases one held thing now (a Worker stopped mid-run) and forgets it. */
    async drop(/** @type {unknown} */ what) {
      const h = holds.findLast((held) => held.what === what);
      if (!h) return;
      await releaseOne(h);
      forget(h);
    },
    /** Releases everything held, newest first; a call while one runs gets that one. */
    release() {
      releasing ??= drain().finally(() => (releasing = null));
      return releasing;
    },
    /**
     * What can still be done as the process exits (synchronously): SIGKILL to the process groups still running,
     * temp dirs removed. For an exit that cut a release short.
     */
    abandon() {
      for (const h of holds.toReversed()) {
        try {
          h.onExit?.();
        } catch {}
      }
    },
  };
}

/** @typedef {ReturnType<typeof resources>} Held */
