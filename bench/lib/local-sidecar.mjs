// @ts-check
// The SMTP sidecar as the benches run it: its own process on a free loopback port, dialling the bench's SMTP server,
// its output in a log file under bench/results/.
import { openSync } from "node:fs";
import { freePort, SIDECAR_SCRIPT, startNodeScript, waitForHttp } from "../../scripts/lib/local.mjs";

/**
 * Starts the sidecar against the SMTP server on `smtpPort`, signed with `secret`; resolves once /healthz answers.
 * @param {{ secret: string, smtpPort: number, logFile: string }} options
 * @returns {Promise<{ base: string, child: import("node:child_process").ChildProcess, logFd: number }>}
 */
export async function startLocalSidecar({ secret, smtpPort, logFile }) {
  const port = await freePort();
  const logFd = openSync(logFile, "w");
  const child = startNodeScript(SIDECAR_SCRIPT, {
    stdio: logFd,
    env: {
      SIDECAR_SECRET: secret,
      SIDECAR_PORT: String(port),
      SIDECAR_HOST: "127.0.0.1",
      SIDECAR_ALLOW_LOOPBACK: "1",
      SMTP_PORT: String(smtpPort),
      // One loopback server stands for every domain and answers thousands of unknown users: the pacing per MX address
      // (docs/email.md, "Pacing") would hold them back; its own tests cover it, the benches measure throughput.
      SMTP_PACE_REFUSALS: "1000000",
      SMTP_PACE_CONNECTS: "1000000",
    },
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`, { child, name: "the SMTP sidecar", timeoutMs: 30_000 });
  return { base, child, logFd };
}
