// The real mail software of the lab: Debian's Postfix, postgrey and fail2ban, installed from the archive when missing,
// and run from a temp dir (`postfix -c <dir>/etc` with its own queue and data directories, postgrey in the foreground
// as our child), so nothing of /etc/postfix or a system postgrey is touched.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { greylistWhitelist, LISTENERS, postfixMaps, type TruthRow } from "./lab.ts";

const PACKAGES = {
  postfix: "/usr/sbin/postfix",
  postgrey: "/usr/sbin/postgrey",
  "fail2ban-regex": "/usr/bin/fail2ban-regex",
};
const DEBIAN_PACKAGES = ["postfix", "postgrey", "fail2ban"];
const POLICY_RC = "/usr/sbin/policy-rc.d";

/** The postgrey delay: short, so a re-check inside the tier's time can pass (Debian's default is 300 s). */
export const GREYLIST_DELAY_S = 5;

/**
 * Installs Postfix, postgrey and fail2ban (for `fail2ban-regex`) from Debian's archive when a tool is missing:
 * non-interactive, Postfix preseeded to "No configuration", and a temporary policy-rc.d so the packages' scripts
 * start no system daemons (there is no init here, and the lab runs its own).
 */
export function ensurePackages(log: (line: string) => void) {
  const missing = Object.entries(PACKAGES).filter(([, path]) => !existsSync(path));
  if (!missing.length) return;
  if (process.getuid?.() !== 0)
    throw new Error(`missing ${missing.map(([name]) => name).join(", ")}; run as root or apt-get install postfix ...`);
  log(
    `installing ${DEBIAN_PACKAGES.join(", ")} from the Debian archive (missing: ${missing.map(([n]) => n).join(", ")})`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("debconf-set-selections", { input: "postfix postfix/main_mailer_type select No configuration\n" });
  const ownPolicy = !existsSync(POLICY_RC);
  if (ownPolicy) writeFileSync(POLICY_RC, "#!/bin/sh\nexit 101\n", { mode: 0o755 });
  try {
    execFileSync("apt-get", ["update", "-qq"], { env, stdio: ["ignore", "ignore", "inherit"] });
    const args = ["install", "-y", "-q", "--no-install-recommends", ...DEBIAN_PACKAGES];
    execFileSync("apt-get", args, { env, stdio: ["ignore", "ignore", "inherit"] });
  } finally {
    if (ownPolicy) rmSync(POLICY_RC, { force: true });
  }
}

function render(template: string, values: Record<string, string | number>): string {
  const text = readFileSync(new URL(`./postfix/${template}`, import.meta.url), "utf8");
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(values[name] ?? `{{${name}}}`));
}

/**
 * Resolves once something listens on `ip:port`, read from /proc/net/tcp rather than by connecting: a test connection
 * would count against the anvil limits of the rate-limited listeners.
 */
async function waitForListener(ip: string, port: number, timeoutMs = 20_000) {
  const hex = `${ip
    .split(".")
    .reverse()
    .map((n) => Number(n).toString(16).padStart(2, "0"))
    .join("")}`.toUpperCase();
  const local = `${hex}:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const table = readFileSync("/proc/net/tcp", "utf8").split("\n");
    if (table.some((line) => line.trim().split(/\s+/)[1] === local && line.trim().split(/\s+/)[3] === "0A")) return;
    await sleep(200);
  }
  throw new Error(`nothing listens on ${ip}:${port}`);
}

export interface MailLab {
  /** The Postfix log (maillog_file), written by postlogd. */
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Writes the Postfix instance into `dir` (config in etc/, maps beside it, queue/ and data/ its own) with every listener
 * on `port`, starts postgrey on `postgreyPort` and Postfix, and waits until each listener takes connections.
 */
export async function startMailLab(options: { dir: string; port: number; postgreyPort: number; rows: TruthRow[] }) {
  const { dir, port, postgreyPort, rows } = options;
  const etc = join(dir, "etc");
  for (const sub of ["etc", "queue", "data", "mail", "postgrey"]) mkdirSync(join(dir, sub), { recursive: true });
  execFileSync("chmod", ["755", dir]);
  execFileSync("chown", ["postfix", join(dir, "data")]);
  execFileSync("chown", ["postgrey", join(dir, "postgrey")]);
  writeFileSync(join(etc, "main.cf"), render("main.cf.template", { DIR: dir, POSTGREY: postgreyPort }));
  writeFileSync(join(etc, "master.cf"), render("master.cf.template", { PORT: port }));
  for (const [name, text] of Object.entries(postfixMaps(rows))) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, "greylist-whitelist"), greylistWhitelist(rows));

  const postgrey = spawn(
    "postgrey",
    [
      `--inet=127.0.0.1:${postgreyPort}`,
      `--dbdir=${join(dir, "postgrey")}`,
      `--delay=${GREYLIST_DELAY_S}`,
      // No auto-whitelisting of the prober after 5 passes: the truth of the greylisting domains stays fixed.
      "--auto-whitelist-clients=0",
      `--whitelist-recipients=${join(dir, "greylist-whitelist")}`,
      "--whitelist-clients=/dev/null",
    ],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  const logFile = join(dir, "maillog");
  const stop = async () => {
    spawnSync("postfix", ["-c", etc, "abort"], { stdio: "ignore" });
    await stopChild(postgrey);
  };
  try {
    await waitForListener("127.0.0.1", postgreyPort);
    const started = spawnSync("postfix", ["-c", etc, "start"], { encoding: "utf8" });
    if (started.status !== 0) {
      const log = existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-2_000) : "";
      throw new Error(`postfix start failed (${started.status}): ${started.stderr}${log}`);
    }
    await Promise.all(LISTENERS.map((l) => waitForListener(l.ip, port)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { logFile, stop } satisfies MailLab;
}

async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(3_000).then(() => child.kill("SIGKILL"))]);
}
