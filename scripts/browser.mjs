// `npm run browser:install` and the browser tests' set-up: finds a Chromium for playwright-core, installing Debian's
// `chromium` package when none is there and this machine can (apt-get as root, or sudo without a password).
//
//   CHROMIUM_PATH=/path/to/chrome   use this browser, install nothing
//
// Resolves to `{ executablePath }`, or `{ reason }` saying why there is no browser and how to get one.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { pathToFileURL } from "node:url";

const NAMES = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"];
const INSTALL_TIMEOUT_MS = 15 * 60_000;

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findBrowser() {
  if (process.env.CHROMIUM_PATH) return executable(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : null;
  const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const name of NAMES) {
    for (const dir of dirs) if (executable(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** apt-get, directly as root or through `sudo -n`; null when this machine offers neither. */
function aptRunner() {
  if (process.platform !== "linux" || !executable("/usr/bin/apt-get")) return null;
  if (process.getuid?.() === 0) return (args) => ["/usr/bin/apt-get", args];
  const sudo = spawnSync("sudo", ["-n", "true"], { stdio: "ignore" });
  return sudo.status === 0 ? (args) => ["sudo", ["-n", "/usr/bin/apt-get", ...args]] : null;
}

function installWithApt(log) {
  const apt = aptRunner();
  if (!apt) return "apt-get is not available to this user (not root, no password-less sudo)";
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "--no-install-recommends", "chromium"],
  ]) {
    const [command, argv] = apt(args);
    log(`[browser] ${command} ${argv.join(" ")}`);
    const run = spawnSync(command, argv, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      timeout: INSTALL_TIMEOUT_MS,
    });
    if (run.status !== 0)
      return `apt-get ${args[0]} failed: ${String(run.stderr ?? run.error ?? "")
        .trim()
        .split("\n")
        .slice(-3)
        .join(" ")}`;
  }
  return null;
}

export async function ensureBrowser({ install = true, log = console.log } = {}) {
  let executablePath = findBrowser();
  if (executablePath) return { executablePath };
  if (process.env.CHROMIUM_PATH)
    return { reason: `CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file` };
  if (!install) return { reason: `no Chromium on PATH (${NAMES.join(", ")})` };
  log("[browser] no Chromium found: installing Debian's chromium package (once per machine)");
  const failure = installWithApt(log);
  executablePath = findBrowser();
  if (executablePath) return { executablePath };
  return {
    reason:
      `no Chromium could be installed (${failure ?? "the chromium package installed no browser on PATH"}). ` +
      "Install one (Debian/Ubuntu: apt-get install chromium) or set CHROMIUM_PATH to a Chrome or Chromium binary.",
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const result = await ensureBrowser();
  if (result.executablePath) console.log(`[browser] ${result.executablePath}`);
  else {
    console.error(`[browser] ${result.reason}`);
    process.exit(1);
  }
}
