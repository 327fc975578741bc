// @ts-check
// The house rules every benchmark runs under: Ctrl-C / SIGTERM / SIGHUP and a global deadline stop it cleanly,
// whatever it holds (`held`, bench/lib/resources.mjs: child processes, stand-ins, logs, temp dirs) is always released,
// and the exit code is main()'s.

/**
 * @param {{ main: () => Promise<number>, held: import("./resources.mjs").Held, timeoutMs: number, logHint?: string }}
 *   bench
 */
export async function runBench({ main, held, timeoutMs, logHint }) {
  let stopping = false;
  const stop = async (message, code) => {
    console.error(message);
    stopping = true;
    await held.release();
    process.exit(code);
  };
  // An exit before the release is done (an uncaught error elsewhere) still kills what is left and removes temp dirs.
  process.on("exit", () => held.abandon());
  for (const [signal, code] of /** @type {[NodeJS.Signals, number][]} */ ([
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ])) {
    process.on(signal, () => stop(`\n[bench] ${signal}: stopping`, code));
  }
  const deadline = setTimeout(() => stop(`[bench] not done after ${timeoutMs / 1000} s; giving up`, 1), timeoutMs);
  try {
    process.exitCode = await main();
  } catch (err) {
    if (stopping) await new Promise(() => {}); // the signal/deadline handler is cleaning up and will exit
    console.error(`[bench] ${err instanceof Error ? err.stack : err}`);
    if (logHint) console.error(`[bench] ${logHint}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(deadline);
    await held.release();
  }
}
