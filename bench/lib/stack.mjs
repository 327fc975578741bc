// @ts-check
// The Worker on a fresh local stack, as every benchmark starts it.
import { mkdirSync, openSync, renameSync } from "node:fs";
import { join } from "node:path";
import { bundleWorker, ROOT, startLocalWorker } from "../../scripts/lib/local.mjs";

const RESULTS_DIR = join(ROOT, "bench", "results");

/**
 * Migrates a fresh local database under `dir`, bundles the Worker once (`frozen`: edits to src/ during the run then
 * neither rebuild nor reload it), starts `wrangler dev` on a free port with `vars` (which win over .dev.vars) and its
 * output in bench/results/`log`, and waits for /healthz. `held` gets the child and the log fd as soon as they exist,
 * so they are released even if start-up fails.
 * @param {{ held: import("./resources.mjs").Held, dir: string, vars: Record<string, string>, log: string,
 *   frozen: boolean, logLevel: string }} options
 * @returns {Promise<{ base: string, inspector: string, child: import("node:child_process").ChildProcess }>}
 */
export async function startWorker({ held, dir, vars, log, frozen, logLevel }) {
  const persistTo = join(dir, "state");
  let script;
  if (frozen) {
    script = await bundleWorker(join(dir, "bundle"));
    console.log(
      "[bench] bundled the Worker (edits to the repository during the run do not restart it; BENCH_FROZEN=0 runs " +
        "from src/)",
    );
  }
  console.log(
    `[bench] starting wrangler dev on a fresh local database in ${persistTo} (output in bench/results/${log})`,
  );
  // A fresh checkout has no bench/results (gitignored) until a bench makes it.
  mkdirSync(RESULTS_DIR, { recursive: true });
  const start = () => {
    const logFd = held.fd(openSync(join(RESULTS_DIR, log), "w"));
    return startLocalWorker({
      persistTo,
      vars,
      // wrangler's local tracing (on by default) stores a trace of every request and storage call in the same
      // runtime, a per-call cost that grows with its store and that production does not have;
      // X_LOCAL_OBSERVABILITY=true keeps it.
      env: { X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false" },
      script,
      stdio: logFd,
      extraArgs: ["--log-level", logLevel],
      track: (child) => held.process(child),
    });
  };
  // A start that dies before answering is tried once more on new ports: on a machine where several stacks start at
  // once, a port found free can be taken before wrangler binds it (the first attempt's output is in the log).
  const { base, inspector, child } = await start().catch((err) => {
    if (!/exited .* before/.test(String(err))) throw err;
    console.log(`[bench] ${err.message}; starting it once more (bench/results/${log} has the first attempt's output)`);
    renameSync(join(RESULTS_DIR, log), join(RESULTS_DIR, `${log}.failed`));
    return start();
  });
  console.log(`[bench] wrangler dev answers on ${base}`);
  return { base, inspector, child };
}
