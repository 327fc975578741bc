// @ts-check
// The house rules every benchmark runs under: Ctrl-C / SIGTERM / SIGHUP and a global deadline stop it cleanly,
// `cleanup` (stop child processes, close logs, remove temp dirs) always runs, and the exit code is main()'s.

/**
 * @param {{ main: () => Promise<number>, cleanup: () => Promise<void>, timeoutMs: number, logHint?: string, onExit?: ()
 * => void }} bench
 */
export async function runBench({ main, cleanup, timeoutMs, logHint, onExit }) {
  let stopping = false;
  const stop = async (message, code) => {
    console.error(message);
    stopping = true;
    await cleanup();
    process.exit(code);
  };
  if (onExit) process.on("exit", onExit);
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
    await cleanup();
  }
}
