// @ts-check
// The stand-ins for the internet that several benches start the same way: DNS over HTTPS, RDAP and an SMTP server
// (bench/lib/fixtures.mjs), and the SMTP sidecar dialling that server (its own process on a free loopback port, its
// output in a log file under bench/results/), all held until the bench ends, with the Worker's vars that point at them.
import { createHmac } from "node:crypto";
import { openSync } from "node:fs";
import { freePort, SIDECAR_SCRIPT, startNodeScript, waitForHttp } from "../../scripts/lib/local.mjs";
import { startDoh, startRdap, startSmtp } from "./fixtures.mjs";

/**
 * Starts the stand-ins a bench asks for, each by its answers: `zone` for DNS (every answer `dnsLatencyMs` late),
 * `registeredOn` for RDAP, `accepts` for SMTP (every reply `smtpLatencyMs` late) and `sidecar` for the SMTP sidecar in
 * front of it, signed with `secret`, its output in `logFile`. The sidecar is started, not waited for:
 * `sidecar.ready()` resolves once it answers, so a bench may start the Worker meanwhile. `vars` points the Worker at
 * what was started.
 * @param {import("./resources.mjs").Held} held
 * @param {{ zone?: (name: string) => object | undefined, dnsLatencyMs?: number,
 *   registeredOn?: (name: string) => string | undefined, accepts?: (local: string, domain: string) => boolean,
 *   smtpLatencyMs?: number, sidecar?: { secret: string, logFile: string, paced?: boolean } }} answers
 */
export async function startStandIns(
  held,
  { zone, dnsLatencyMs = 0, registeredOn, accepts, smtpLatencyMs = 0, sidecar },
) {
  const doh = zone ? held.closer(await startDoh(zone, dnsLatencyMs)) : undefined;
  const rdap = registeredOn ? held.closer(await startRdap(registeredOn)) : undefined;
  const smtp = accepts ? held.closer(await startSmtp(accepts, smtpLatencyMs)) : undefined;
  const started = sidecar && (await startSidecar(held, { ...sidecar, smtpPort: smtp.port }));
  /** @type {Record<string, string>} */
  const vars = {
    ...(doh && { DOH_URL: doh.url }),
    ...(rdap && { RDAP_BASE_URL: rdap.url }),
    ...(started && { SMTP_SIDECAR_URL: started.base, SMTP_SIDECAR_SECRET: sidecar.secret }),
  };
  return { doh, rdap, smtp, sidecar: started, vars };
}

/**
 * The sidecar against the SMTP server on `smtpPort`. One loopback server stands for every domain and answers thousands
 * of unknown users: the pacing per MX address (docs/email.md, "Pacing") would hold them back, so it is lifted unless
 * `paced` (a bench that measures the walk as production paces it); its own tests cover it.
 * @param {import("./resources.mjs").Held} held
 * @param {{ secret: string, smtpPort: number, logFile: string, paced?: boolean }} options
 */
async function startSidecar(held, { secret, smtpPort, logFile, paced = false }) {
  const port = await freePort();
  const child = held.process(
    startNodeScript(SIDECAR_SCRIPT, {
      stdio: held.fd(openSync(logFile, "w")),
      env: {
        SIDECAR_SECRET: secret,
        SIDECAR_PORT: String(port),
        SIDECAR_HOST: "127.0.0.1",
        SIDECAR_ALLOW_LOOPBACK: "1",
        SMTP_PORT: String(smtpPort),
        ...(paced ? {} : { SMTP_PACE_REFUSALS: "1000000", SMTP_PACE_CONNECTS: "1000000" }),
      },
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const ready = () => waitForHttp(`${base}/healthz`, { child, name: "the SMTP sidecar", timeoutMs: 30_000 });
  return { base, child, ready };
}

/**
 * Request options (bench/lib/load.mjs `send`) for the sidecar's POST /v1/probe, signed with `secret` as the Worker
 * signs it (the same body shape and 10 s deadline): `addresses` at `domain`, whose MX is `mxHost` (default: the
 * loopback SMTP stand-in itself).
 * @param {string} secret
 * @param {{ domain: string, addresses: string[], mxHost?: string }} probe
 */
export function signedProbe(secret, { domain, addresses, mxHost = "127.0.0.1" }) {
  const body = JSON.stringify({ domain, mx_hosts: [{ host: mxHost, preference: 10 }], addresses, timeout_ms: 10_000 });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return {
    method: "POST",
    body,
    headers: { "X-Sidecar-Timestamp": timestamp, "X-Sidecar-Signature": signature },
    read: true,
  };
}
