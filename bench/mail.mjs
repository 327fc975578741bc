// @ts-check
// `npm run bench:mail`: how fast the mail outbox sends, and how long a monitor run's alert takes to arrive, locally.
//
// A Worker of its own (`wrangler dev`, throw-away local data) with MAIL_TRANSPORT=smtp, the real SMTP sidecar
// (workers/smtp-sidecar) relaying to a counting SMTP server on loopback (smtp-server, the catcher). One account with
// BENCH_MEMBERS members has an email monitor with alert_emails on and webhook_events every_run, so each run queues one
// alert per member. Per round: POST .../monitors/{id}/run, then the time until the first alert arrives (run -> alert,
// end to end: walk, outbox rows, queue, sidecar, SMTP) and until the last one (messages/s = members / that time).
// Knobs: BENCH_MEMBERS (200), BENCH_ROUNDS (3). Writes bench/results/mail.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import {
  adminClient,
  freePort,
  requireNode22,
  ROOT,
  SIDECAR_SCRIPT,
  startLocalWorker,
  startNodeScript,
  waitForHttp,
} from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const MEMBERS = size("BENCH_MEMBERS", 200, 12);
const ROUNDS = size("BENCH_ROUNDS", 3, 1);
const ADMIN_TOKEN = "bench-admin-token";
const SECRET = "bench-sidecar-secret-0123456789";
const RESULTS_DIR = join(ROOT, "bench", "results");

const held = resources();

await runBench({ main, held, timeoutMs: num("BENCH_TIMEOUT_MS", 10 * 60_000) });

/** A catcher that only counts: the figure is the outbox's, not a MIME parser's. */
async function startCounter() {
  const arrivals = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        arrivals.push(performance.now());
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  return { server, port: /** @type {import("node:net").AddressInfo} */ (server.server.address()).port, arrivals };
}

async function waitFor(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const dir = held.tempDir("mail-bench-");
  const counter = await startCounter();
  held.closer(counter.server);
  const sidecarPort = await freePort();
  const sidecar = held.process(
    startNodeScript(SIDECAR_SCRIPT, {
      stdio: "ignore",
      env: {
        SIDECAR_SECRET: SECRET,
        SIDECAR_PORT: String(sidecarPort),
        SMTP_RELAY_HOST: "127.0.0.1",
        SMTP_RELAY_PORT: String(counter.port),
      },
    }),
  );
  await waitForHttp(`http://127.0.0.1:${sidecarPort}/healthz`, { child: sidecar, name: "smtp sidecar" });
  const { base } = await startLocalWorker({
    persistTo: dir,
    vars: {
      ADMIN_TOKEN,
      SMTP_SIDECAR_SECRET: SECRET,
      MAIL_LINK_SECRET: "bench-mail-link-secret-0123456789abcdef",
      SMTP_SIDECAR_URL: `http://127.0.0.1:${sidecarPort}`,
      MAIL_TRANSPORT: "smtp",
      MAIL_FROM: "Bench <mail@bench.test>",
    },
    track: (child) => held.process(child),
  });
  const admin = adminClient(base, ADMIN_TOKEN);
  const account = (
    await admin.call("POST", "/accounts", { email: "owner@bench.test", email_verified: true, plan: "enterprise" })
  ).data;
  await admin.call("POST", `/accounts/${account.id}/credits`, { bucket: "pack", amount: 1000 });
  const owner = (await admin.call("POST", `/accounts/${account.id}/members`, { email: "owner@bench.test" })).data;
  for (let i = 1; i < MEMBERS; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, MEMBERS - i) }, (_, j) =>
        admin.call("POST", `/accounts/${account.id}/members`, { email: `member-${i + j}@bench.test` }),
      ),
    );
  }
  const { key } = (await admin.call("POST", `/accounts/${account.id}/keys/secret`, { user_id: owner.user_id })).data;
  const api = async (path, body) => {
    const res = await fetch(new URL(path, base), {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    const json = await res.json();
    if (!json.success) throw new Error(`${path}: ${res.status} ${JSON.stringify(json.error)}`);
    return json.data;
  };
  const { monitor } = await api("/api/v1/email/monitors", {
    name: "Bench",
    emails: ["deliverable@service.test"],
    cadence: "weekly",
    webhook_events: "every_run",
    alert_emails: true,
  });

  console.log(`[bench] ${MEMBERS} recipients per run, ${ROUNDS} rounds`);
  const rounds = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const before = counter.arrivals.length;
    const started = performance.now();
    await api(`/api/v1/email/monitors/${monitor.id}/run`);
    const answered = performance.now();
    await waitFor(() => counter.arrivals.length >= before + MEMBERS, 5 * 60_000, `${MEMBERS} alerts`);
    const mine = counter.arrivals.slice(before, before + MEMBERS);
    const first = mine[0] - started;
    const last = mine[MEMBERS - 1] - started;
    const result = {
      recipients: MEMBERS,
      run_answer_ms: Math.round(answered - started),
      first_alert_ms: Math.round(first),
      last_alert_ms: Math.round(last),
      messages_per_second: +(MEMBERS / (last / 1000)).toFixed(1),
    };
    rounds.push(result);
    console.log(
      `[bench] round ${round}: run answered in ${result.run_answer_ms} ms; first alert after ` +
        `${result.first_alert_ms} ms, all ${MEMBERS} after ${result.last_alert_ms} ms: ${result.messages_per_second} ` +
        `messages/s`,
    );
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const summary = {
    first_alert_ms: median(rounds.map((r) => r.first_alert_ms)),
    messages_per_second: median(rounds.map((r) => r.messages_per_second)),
  };
  console.log(
    `[bench] median: run -> first alert ${summary.first_alert_ms} ms; ${summary.messages_per_second} messages/s to ` +
      `the local catcher`,
  );
  writeFileSync(
    join(RESULTS_DIR, "mail.json"),
    `${JSON.stringify({ rounds, summary, measured_at: new Date().toISOString() }, null, 2)}\n`,
  );
  // A refused call threw above; an alert that never came timed out in waitFor.
  return checkRun({
    bench: "mail",
    figures: { "first alert ms": summary.first_alert_ms, "messages/s": summary.messages_per_second },
  });
}
