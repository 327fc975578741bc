// Shared by scripts/dev.mjs, scripts/admin.mjs and bench/*.mjs: the repository's paths, .dev.vars, running wrangler
// (migrations, `wrangler dev`) and Node services (the SMTP sidecar) as child processes, and a small client for the
// operator API (/admin/v1).
import { spawn } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const DEV_VARS = join(ROOT, ".dev.vars");
export const DEV_VARS_EXAMPLE = join(ROOT, ".dev.vars.example");
/** The SMTP sidecar's entry point (workers/smtp-sidecar/README.md). */
export const SIDECAR_SCRIPT = join(ROOT, "workers", "smtp-sidecar", "server.mjs");

/** wrangler's own launcher, run with this same Node (22 under `npm run`), so no `npx` layer sits between us and it. */
const WRANGLER_BIN = join(
  dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin",
  "wrangler.js",
);

/** The project needs Node 22; `npm run` puts the `node@22` devDependency first on PATH. */
export function requireNode22() {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 22) {
    console.error(
      `Node ${process.versions.node} is too old: run this through npm (\`npm run ...\`) so node_modules' Node 22 is ` +
        `used.`,
    );
    process.exit(1);
  }
}

/** KEY=VALUE lines of a dotenv-style file (comments and blank lines skipped, surrounding quotes removed). */
export function readDevVars(path = DEV_VARS) {
  if (!existsSync(path)) return {};
  const vars = {};
  for (const line of readFileSync(path, "utf8").split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || line.trimStart().startsWith("#")) continue;
    vars[match[1]] = match[2].replace(/^(["'])(.*)\1$/, "$2");
  }
  return vars;
}

/**
 * Makes `.dev.vars` hold every key of `.dev.vars.example`: copies the example when the file is missing, otherwise
 * appends the keys it lacks (with their comment lines from the example) and never touches a value already there.
 * Returns what it did: `{ created: boolean, added: string[] }`.
 */
export function ensureDevVars(path = DEV_VARS, examplePath = DEV_VARS_EXAMPLE) {
  if (!existsSync(path)) {
    copyFileSync(examplePath, path);
    return { created: true, added: [] };
  }
  const have = readDevVars(path);
  const missing = [];
  let comments = [];
  let seenKey = false; // comments above the first key are the file's header, not that key's
  for (const line of readFileSync(examplePath, "utf8").split(/\r?\n/)) {
    if (line.trimStart().startsWith("#")) {
      comments.push(line);
      continue;
    }
    const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (key && !(key in have)) missing.push({ key, lines: [...(seenKey ? comments : []), line] });
    if (key) seenKey = true;
    if (key || line.trim() === "") comments = [];
  }
  if (missing.length) {
    const current = readFileSync(path, "utf8");
    const lead = current === "" || current.endsWith("\n") ? "" : "\n";
    const block = missing.map(({ lines }) => lines.join("\n")).join("\n");
    appendFileSync(path, `${lead}# Added from .dev.vars.example by npm run dev:\n${block}\n`);
  }
  return { created: false, added: missing.map(({ key }) => key) };
}

/**
 * Environment for wrangler children: no telemetry, no update check (the banner's) and no download of the `Request.cf`
 * object from workers.cloudflare.com, so local runs touch only loopback. Anything already set in the environment wins.
 */
export function wranglerEnv(extra = {}) {
  return {
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    ...process.env,
    ...extra,
  };
}

/**
 * Runs a wrangler command to completion. stdin is not a TTY, so wrangler's confirmations (e.g. "About to apply 1
 * migration(s) ... continue?") take their fallback answer, yes, instead of waiting for input.
 * With `quiet`, output is collected and only shown if the command fails; with `output(chunk)`, it goes there instead
 * of the terminal (`npm run dev` writes it to its log file).
 */
export function runWrangler(args, { quiet = false, output } = {}) {
  return new Promise((resolvePromise, reject) => {
    const piped = quiet || output !== undefined;
    const child = spawn(process.execPath, [WRANGLER_BIN, ...args], {
      cwd: ROOT,
      env: wranglerEnv(),
      stdio: ["ignore", piped ? "pipe" : "inherit", piped ? "pipe" : "inherit"],
    });
    let collected = "";
    const take = (chunk) => {
      if (quiet) collected += chunk;
      output?.(chunk);
    };
    child.stdout?.on("data", take);
    child.stderr?.on("data", take);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code === 0) return resolvePromise(collected);
      if (quiet) process.stderr.write(collected);
      reject(new Error(`wrangler ${args.join(" ")} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

/** Each local D1 database and its migrations directory (wrangler.toml's `d1_databases`). */
export const D1_DATABASES = [
  { binding: "DB", dir: "migrations" },
  { binding: "REFERENCE_ADDRESS", dir: "migrations-address" },
];

/**
 * Applies the migrations the local databases (under `persistTo`, default .wrangler/state) lack, as `wrangler d1
 * migrations apply <binding> --local` would for each of D1_DATABASES, and resolves `{applied}`: their names, [] when
 * none was pending (wrangler is then not started at all), null when wrangler's own command decided. Pending ones of a
 * database go in one `wrangler d1 execute` (scripts/lib/migrations.mjs: one runtime start instead of one per
 * migration). `quiet` and `output` as runWrangler.
 */
export async function applyMigrations({ persistTo, quiet = false, output } = {}) {
  let applied = [];
  for (const database of D1_DATABASES) {
    const done = await applyDatabaseMigrations(database, { persistTo, quiet, output });
    applied = applied === null || done.applied === null ? null : [...applied, ...done.applied];
  }
  return { applied };
}

async function applyDatabaseMigrations({ binding, dir: folder }, { persistTo, quiet, output }) {
  // Loaded here: node:sqlite does not exist in the Node 20 that requireNode22() turns away with a clear message.
  const { migrationBatch, pendingMigrations } = await import("./migrations.mjs");
  const dir = join(ROOT, folder);
  const persist = persistTo ? ["--persist-to", persistTo] : [];
  // A custom migrations table, or several local databases: wrangler's own command knows, the shortcut does not.
  const custom = /^\s*migrations_table\s*=/m.test(readFileSync(join(ROOT, "wrangler.toml"), "utf8"));
  const pending = custom ? null : pendingMigrations({ persistTo: persistTo ?? join(ROOT, ".wrangler", "state"), dir });
  if (pending === null) {
    await runWrangler(["d1", "migrations", "apply", binding, "--local", ...persist], { quiet, output });
    return { applied: null };
  }
  if (!pending.length) return { applied: [] };
  const tmp = mkdtempSync(join(tmpdir(), "d1-migrations-"));
  try {
    const file = join(tmp, "pending.sql");
    writeFileSync(file, migrationBatch(pending, dir));
    output?.(`Applying ${pending.length} migration(s) in one \`wrangler d1 execute\` batch: ${pending.join(", ")}\n`);
    // It answers with every statement's result as JSON (over a thousand lines): kept only when it failed.
    let answer = "";
    const args = ["d1", "execute", binding, "--local", "--file", file, "--json", ...persist];
    await runWrangler(args, { quiet, output: (chunk) => (answer += chunk) }).catch((err) => {
      output?.(answer);
      const which = pending.length === 1 ? pending[0] : `${pending[0]} to ${pending.at(-1)}`;
      throw new Error(`D1 migrations not applied (${which}; all or none): ${err.message}`);
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return { applied: pending };
}

/**
 * Bundles the Worker once, as `wrangler deploy` would, into `outDir` (`wrangler deploy --dry-run --outdir`, nothing is
 * uploaded); resolves with the path of the bundled entry, for startWranglerDev({ script }).
 */
export async function bundleWorker(outDir) {
  await runWrangler(["deploy", "--dry-run", "--outdir", outDir], { quiet: true });
  return join(outDir, "index.js");
}

/**
 * Starts `wrangler dev` on 127.0.0.1:port. The child leads its own process group (so a terminal Ctrl-C reaches only
 * our parent, which forwards it exactly once, and stopProcess can take down wrangler together with its workerd
 * children); stdin is not passed, so there is no interactive hotkey session.
 * `script`: run this already-bundled entry (see bundleWorker) with wrangler.toml's bindings instead of building src/,
 * and without watching wrangler.toml / .dev.vars either (WRANGLER_CI_DISABLE_CONFIG_WATCHING): edits to the
 * repository during the run do not restart the Worker.
 */
export function startWranglerDev({ port, persistTo, script, extraArgs = [], stdio = "inherit", env = {} }) {
  const args = ["dev", ...(script ? [script, "--no-bundle", "--config", join(ROOT, "wrangler.toml")] : [])];
  args.push("--port", String(port), "--ip", "127.0.0.1", "--test-scheduled", ...extraArgs);
  if (persistTo) args.push("--persist-to", persistTo);
  return spawn(process.execPath, [WRANGLER_BIN, ...args], {
    cwd: ROOT,
    env: wranglerEnv({ ...(script ? { WRANGLER_CI_DISABLE_CONFIG_WATCHING: "true" } : {}), ...env }),
    detached: true,
    stdio: ["ignore", stdio, stdio],
  });
}

/**
 * A Worker of its own for a tool or a test run, next to whatever `npm run dev` is doing: migrates the local database
 * under `persistTo`, starts `wrangler dev` on free ports (HTTP and inspector) with `vars` (which win over .dev.vars)
 * and `env` for wrangler itself, and waits for /healthz. `track(child)` gets the child as soon as it exists, so the
 * caller can stop it (stopProcess) even if start-up fails. Other options as startWranglerDev.
 * @param {{ persistTo: string, vars?: Record<string, string>, env?: Record<string, string>, script?: string,
 *   stdio?: "ignore" | "inherit" | number, extraArgs?: string[],
 *   track?: (child: import("node:child_process").ChildProcess) => void }} options
 * @returns {Promise<{ base: string, child: import("node:child_process").ChildProcess, inspector: string }>}
 */
export async function startLocalWorker({
  persistTo,
  vars = {},
  env = {},
  script,
  stdio = "ignore",
  extraArgs = [],
  track = () => {},
}) {
  await applyMigrations({ persistTo, quiet: true });
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const child = startWranglerDev({
    port,
    persistTo,
    script,
    stdio,
    env,
    extraArgs: [...varArgs, "--inspector-port", String(inspectorPort), ...extraArgs],
  });
  track(child);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`, { child, timeoutMs: 120_000 });
  // The inspector (host:port) lets a bench take the Worker's CPU profile (bench/lib/cpu-profile.mjs).
  return { base, child, inspector: `127.0.0.1:${inspectorPort}` };
}

/**
 * Starts a Node script of the repository with this same Node (22 under `npm run`), leading its own process group like
 * `wrangler dev` above, so stopProcess / signalTree reach it and anything it spawns. `env` is added to ours.
 * @param {string} script
 * @param {{ args?: string[], env?: Record<string, string>, stdio?: "inherit" | "ignore" | "pipe" | number }} [options]
 */
export function startNodeScript(script, { args = [], env = {}, stdio = "inherit" } = {}) {
  return spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", stdio, stdio],
  });
}

export const isRunning = (child) => child.exitCode === null && child.signalCode === null;

/** Signals a child we started, and its process group if it leads one; never throws. */
export function signalTree(child, signal) {
  for (const target of [-child.pid, child.pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // ESRCH: not a group leader / already gone.
    }
  }
}

/** SIGTERM, then SIGKILL to the whole group if it has not exited within `graceMs`. Resolves once it has exited. */
export async function stopProcess(child, graceMs = 8_000) {
  if (!child || child.pid === undefined) return;
  if (isRunning(child)) {
    const exited = new Promise((r) => child.once("exit", r));
    try {
      process.kill(child.pid, "SIGTERM");
    } catch {}
    const timedOut = await Promise.race([exited.then(() => false), sleep(graceMs).then(() => true)]);
    if (timedOut) {
      signalTree(child, "SIGKILL");
      await exited;
    }
  }
  signalTree(child, "SIGKILL"); // anything left in the group (workerd, esbuild) once wrangler itself is gone
}

/**
 * Resolves once GET url answers 2xx; rejects if the child (`name` in messages) exits first or `timeoutMs` passes.
 * @param {string} url
 * @param {{ child?: import("node:child_process").ChildProcess, name?: string, timeoutMs?: number }} [options]
 */
export async function waitForHttp(url, { child, name = "wrangler dev", timeoutMs = 90_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && !isRunning(child))
      throw new Error(`${name} exited (${child.signalCode ?? `exit ${child.exitCode}`}) before ${url} answered`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${url} did not answer within ${Math.round(timeoutMs / 1000)} s`);
}

/** Rejects with a clear message when something already listens on 127.0.0.1:port (`envName` says how to move it). */
export function assertPortFree(port, envName = "PORT") {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once("error", (err) =>
      reject(
        err.code === "EADDRINUSE"
          ? new Error(
              `Port ${port} on 127.0.0.1 is already in use (another \`npm run dev\`?). Set ${envName}=... to use ` +
                `another.`,
            )
          : err,
      ),
    );
    server.listen(port, "127.0.0.1", () => server.close(() => resolvePromise()));
  });
}

/**
 * A port the OS considers free on 127.0.0.1 right now. With LOCAL_PORT_RANGE=first-last (a machine where each user
 * has a range of ports), the first port of that range that is free and not handed out before by this process.
 */
export async function freePort() {
  const range = /^(\d+)-(\d+)$/.exec(process.env.LOCAL_PORT_RANGE ?? "");
  if (!range) return listenOn(0);
  for (let port = Number(range[1]); port <= Number(range[2]); port++) {
    if (handedOut.has(port)) continue;
    const free = await listenOn(port).catch((err) => (err.code === "EADDRINUSE" ? null : Promise.reject(err)));
    if (free === null) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port left in LOCAL_PORT_RANGE=${process.env.LOCAL_PORT_RANGE}`);
}

const handedOut = new Set();

/** Listens on `port` (0: any) of 127.0.0.1 and closes again; resolves the port. */
function listenOn(port) {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address();
      server.close(() => resolvePromise(bound));
    });
  });
}

/** An error envelope (`{success: false, error}`) or a response that is not an envelope at all. */
export class ApiError extends Error {
  constructor(status, body, what) {
    const code = body?.error?.code ?? `HTTP_${status}`;
    super(
      `${what} -> ${status} ${code}: ` +
        `${body?.error?.message ?? (typeof body === "string" ? body.slice(0, 200) : "unexpected response")}`,
    );
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

/**
 * Operator API client. `call(method, path, body)` returns the parsed envelope on `success: true` and throws ApiError
 * otherwise; `request` returns `{status, body}` without judging it.
 */
export function adminClient(baseUrl, token) {
  const request = async (method, path, body) => {
    const res = await fetch(new URL(`/admin/v1${path}`, baseUrl), {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    /** @type {any} the envelope, or the text when it is not JSON */
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed };
  };
  const call = async (method, path, body) => {
    const { status, body: parsed } = await request(method, path, body);
    if (parsed?.success !== true) throw new ApiError(status, parsed, `${method} /admin/v1${path}`);
    return parsed;
  };
  return { request, call };
}

/** POSTs with a few retries on transport errors and 5xx (row upserts are idempotent). */
export async function callWithRetry(admin, method, path, body, attempts = 4) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await admin.call(method, path, body);
    } catch (err) {
      const transient = !(err instanceof ApiError) || err.status >= 500;
      if (!transient || attempt >= attempts) throw err;
      await sleep(250 * 2 ** attempt);
    }
  }
}

/**
 * Posts rows to `path` as `{rows}` (or `body(rows)`) in batches of `batchSize`, `concurrency` batches in flight, each
 * retried on transient failures; the first failure stops the import. `progress(sent)` is called every `reportEvery`
 * rows.
 */
export function rowPoster({
  admin,
  path,
  batchSize,
  concurrency,
  body = (rows) => ({ rows }),
  reportEvery = 100_000,
  progress = () => {},
}) {
  const inflight = new Set();
  let failure = null;
  let batch = [];
  let sent = 0;
  let nextReport = reportEvery;
  const flush = async () => {
    if (failure) throw failure;
    if (!batch.length) return;
    const rows = batch;
    batch = [];
    const request = callWithRetry(admin, "POST", path, body(rows))
      .catch((err) => (failure ??= err))
      .finally(() => inflight.delete(request));
    inflight.add(request);
    sent += rows.length;
    if (sent >= nextReport) progress(sent), (nextReport += reportEvery);
    while (inflight.size >= concurrency) await Promise.race(inflight);
    if (failure) throw failure;
  };
  return {
    async push(row) {
      batch.push(row);
      if (batch.length >= batchSize) await flush();
    },
    /** Sends what is left, waits for every batch, and answers how many rows were sent. */
    async finish() {
      await flush();
      await Promise.all(inflight);
      if (failure) throw failure;
      return sent;
    },
  };
}

/**
 * Where the operator API runs, for the CLI and every importer alike: `--url`, else ADMIN_URL, else the local dev
 * stack (http://127.0.0.1:$PORT, PORT 8787).
 */
export const defaultAdminUrl = (flag) =>
  flag ?? process.env.ADMIN_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;
