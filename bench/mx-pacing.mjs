// @ts-check
// `npm run bench:mx-pacing`: what the sidecar's per-MX pacing (docs/email.md, "Pacing") costs a stream of single
// lookups at one domain, for a small server's MX and for a big provider's, with the production limits (nothing lifted).
//
// Starts a real SMTP server (smtp-server, bench/lib/fixtures.mjs: local parts starting `ok-` exist, the rest are
// 550 5.1.1), a DoH stand-in that resolves both MX names to it, and, for each MX name in turn, a fresh sidecar process
// (workers/smtp-sidecar/server.mjs, SIDECAR_DOH_URL set, so the sidecar sees the real MX name): BENCH_LOOKUPS
// single-address probes (default 200; one in BENCH_UNKNOWN_EVERY, default 5, an unknown user), BENCH_CONCURRENCY in
// flight (default 4), each with a 10 s deadline. Prints per MX the share answered by the server (accepted or
// no_mailbox, the rest held back as `deferred` or `timeout`), answered lookups a second and the wall time, and the
// provider / small-server ratios of the same run. Writes bench/results/mx-pacing.json.
import { randomBytes } from "node:crypto";
import { mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runBench } from "./lib/harness.mjs";
import { signedProbe } from "./lib/stand-ins.mjs";
import { resources } from "./lib/resources.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { startDoh, startSmtp } from "./lib/fixtures.mjs";
import { keepAliveAgent, round2, send } from "./lib/load.mjs";
import { freePort, requireNode22, ROOT, SIDECAR_SCRIPT, startNodeScript, waitForHttp } from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const LOOKUPS = size("BENCH_LOOKUPS", 200, 40);
const CONCURRENCY = num("BENCH_CONCURRENCY", 4);
const UNKNOWN_EVERY = num("BENCH_UNKNOWN_EVERY", 5);
const SECRET = `bench-mx-pacing-${randomBytes(12).toString("hex")}`;
const RESULTS_DIR = join(ROOT, "bench", "results");
const TAG = randomBytes(3).toString("hex");
/** A small server's MX, and a big provider's (Gmail's, in the mx-provider-patterns dataset). */
const MX = { small: "mx.small-server.example", provider: "gmail-smtp-in.l.google.com" };

const held = resources();
/** The DoH and SMTP stand-ins every sidecar of the run dials. */
let doh = null;
let smtp = null;

await runBench({
  main,
  held,
  timeoutMs: num("BENCH_TIMEOUT_MS", 10 * 60_000),
  logHint: "sidecar output: bench/results/mx-pacing-*.log",
});

/** A sidecar with production pacing, resolving MX names over the stand-in DoH. */
async function startPacedSidecar(name) {
  const port = await freePort();
  const fd = held.fd(openSync(join(RESULTS_DIR, `mx-pacing-${name}.log`), "w"));
  const child = startNodeScript(SIDECAR_SCRIPT, {
    stdio: fd,
    env: {
      SIDECAR_SECRET: SECRET,
      SIDECAR_PORT: String(port),
      SIDECAR_HOST: "127.0.0.1",
      SIDECAR_ALLOW_LOOPBACK: "1",
      SIDECAR_DOH_URL: doh.url,
      SMTP_PORT: String(smtp.directPort),
    },
  });
  held.process(child);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`, { child, name: "the SMTP sidecar", timeoutMs: 30_000 });
  return { base, child };
}

/** The stream of single lookups at one domain whose MX is `mxHost`. */
async function stream(name, mxHost) {
  const started = await startPacedSidecar(name);
  const agent = keepAliveAgent(CONCURRENCY);
  const domain = `${name}-${TAG}.example`;
  const outcomes = {};
  let next = 0;
  const worker = async () => {
    while (next < LOOKUPS) {
      const i = next++;
      const address = `${i % UNKNOWN_EVERY === 0 ? "nobody" : "ok"}-${i}@${domain}`;
      const res = await send(
        agent,
        `${started.base}/v1/probe`,
        signedProbe(SECRET, { domain, mxHost, addresses: [address] }),
      );
      const outcome = res.status === 200 ? JSON.parse(res.text).results?.[0]?.outcome : `http ${res.status}`;
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  await held.drop(started.child);
  const answered = (outcomes.accepted ?? 0) + (outcomes.no_mailbox ?? 0);
  return {
    mx_host: mxHost,
    lookups: LOOKUPS,
    answered,
    answered_share: round2(answered / LOOKUPS),
    answered_per_second: round2(answered / seconds),
    seconds: round2(seconds),
    outcomes,
  };
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  smtp = held.closer(await startSmtp((local) => local.startsWith("ok-")));
  const resolve = (name) => (Object.values(MX).includes(name) ? { A: ["127.0.0.1"] } : undefined);
  doh = held.closer(await startDoh(resolve));
  const small = await stream("small", MX.small);
  const provider = await stream("provider", MX.provider);
  const ratio = {
    answered: round2(provider.answered / Math.max(1, small.answered)),
    answered_per_second: round2(provider.answered_per_second / Math.max(0.01, small.answered_per_second)),
  };
  for (const [name, r] of Object.entries({ small, provider })) {
    console.log(
      `${name.padEnd(8)} ${r.mx_host}: ${r.answered}/${r.lookups} answered (${r.answered_share}), ` +
        `${r.answered_per_second} answered/s, ${r.seconds} s; ${JSON.stringify(r.outcomes)}`,
    );
  }
  console.log(
    `provider / small server, same run: ${ratio.answered}x answered, ${ratio.answered_per_second}x answered/s ` +
      `(${LOOKUPS} single lookups, ${CONCURRENCY} in flight, one in ${UNKNOWN_EVERY} unknown)`,
  );
  const results = { at: new Date().toISOString(), lookups: LOOKUPS, concurrency: CONCURRENCY, small, provider, ratio };
  writeFileSync(join(RESULTS_DIR, "mx-pacing.json"), `${JSON.stringify(results, null, 2)}\n`);
  return checkRun({
    bench: "mx-pacing",
    figures: { "provider answered share": provider.answered_share, "small answered share": small.answered_share },
    errored: Object.keys({ ...small.outcomes, ...provider.outcomes }).filter((o) => o.startsWith("http")).length,
  });
}
