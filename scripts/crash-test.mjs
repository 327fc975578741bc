// `npm run test:crash`: money and delivery survive `kill -9` of the local stack.
//
// Starts what `npm run dev` starts (wrangler dev with local D1, R2, Queues and Durable Objects, plus the SMTP sidecar,
// which also makes the webhook attempts) on free loopback ports with a throw-away --persist-to directory, a DNS-over-
// HTTPS and an RDAP fixture, and a webhook receiver on loopback. Then:
//
//   1. a bulk email run of CRASH_ROWS rows (20,000): a third are disposable addresses (1 credit each, answered from
//      DNS with no handshake), the rest documented test addresses (free), with duplicates;
//   2. SIGKILL of the whole stack (wrangler, workerd, sidecar) once a third of the rows are done, then a restart on the
//      same state: the recovery alarm picks the run up again (no cron fires under wrangler dev);
//   3. when the finished event's first POST reaches the receiver, the receiver holds it and the stack is killed again
//      mid-delivery, then restarted: the delivery must come again;
//   4. checks: the ledger's charges for the run = job.credits_used = the CSV's credits_used column = the webhook's
//      job.credits_used = the number of distinct paid rows, each charge row once; the job's webhook_status delivered.
//
// Prints the figures (charged vs expected, seconds from restart to progress and to redelivery) and exits 1 on any
// mismatch. Bounded by CRASH_TIMEOUT_MS (10 min). Knobs: CRASH_ROWS, CRASH_TIMEOUT_MS, CRASH_KILL_AT (share done).
import { createServer } from "node:http";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startDoh, startRdap } from "../bench/lib/fixtures.mjs";
import {
  adminClient,
  applyMigrations,
  freePort,
  isRunning,
  requireNode22,
  SIDECAR_SCRIPT,
  signalTree,
  startNodeScript,
  startWranglerDev,
  waitForHttp,
} from "./lib/local.mjs";

requireNode22();

const ROWS = Number(process.env.CRASH_ROWS ?? 20_000);
const TIMEOUT_MS = Number(process.env.CRASH_TIMEOUT_MS ?? 10 * 60_000);
const KILL_AT = Number(process.env.CRASH_KILL_AT ?? 0.33);
const ADMIN_TOKEN = "crash-admin-token";
const SIDECAR_SECRET = "crash-sidecar-secret-0123456789";
const DOMAINS = ["mailinator.com", "yopmail.com", "trashmail.com", "maildrop.cc", "getnada.com"];
const TEST_LOCALS = ["deliverable", "unverified", "catch-all", "role", "undeliverable"];

const log = (line) => console.log(`[crash] ${line}`);
const dir = mkdtempSync(join(tmpdir(), "crash-test-"));
const logFd = openSync(join(dir, "stack.log"), "w");
const closers = [];
let stack = null;

/** The list: a third paid (distinct disposable addresses), the rest free test addresses; every 10th row a duplicate. */
function buildList(rows) {
  const inputs = [];
  const paid = new Set();
  for (let i = 0; inputs.length < rows; i++) {
    if (i % 10 === 9) inputs.push(inputs[(i * 7) % inputs.length]);
    else if (i % 3 === 0) {
      const address = `user${i}@${DOMAINS[i % DOMAINS.length]}`;
      paid.add(address);
      inputs.push(address);
    } else inputs.push(`${TEST_LOCALS[i % TEST_LOCALS.length]}+r${i}@service.test`);
  }
  return { inputs, paid: paid.size };
}

/** A webhook receiver on loopback; the first POST is held unanswered (the stack is killed while it waits). */
async function startReceiver() {
  const posts = [];
  let arrived = () => {};
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      posts.push({ at: Date.now(), body });
      arrived();
      if (posts.length === 1) return; // held: this attempt dies with the stack
      res.writeHead(200).end();
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  closers.push(() => (server.closeAllConnections(), new Promise((resolve) => server.close(resolve))));
  return { url: `http://127.0.0.1:${port}/hook`, posts, next: () => new Promise((resolve) => (arrived = resolve)) };
}

/** wrangler dev + the sidecar on the same state directory and ports each time. */
async function startStack(ports, fixtures) {
  const sidecar = startNodeScript(SIDECAR_SCRIPT, {
    env: {
      SIDECAR_SECRET,
      SIDECAR_PORT: String(ports.sidecar),
      SIDECAR_HOST: "127.0.0.1",
      SIDECAR_ALLOW_LOOPBACK: "1",
    },
    stdio: logFd,
  });
  const vars = {
    ADMIN_TOKEN,
    DOH_URL: fixtures.doh.url,
    RDAP_BASE_URL: fixtures.rdap.url,
    SMTP_SIDECAR_URL: `http://127.0.0.1:${ports.sidecar}`,
    SMTP_SIDECAR_SECRET: SIDECAR_SECRET,
    WEBHOOKS_ALLOW_LOOPBACK: "true",
  };
  const extraArgs = [...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]), "--log-level", "warn"];
  const wrangler = startWranglerDev({ port: ports.api, persistTo: join(dir, "state"), stdio: logFd, extraArgs });
  stack = { sidecar, wrangler };
  await Promise.all([
    waitForHttp(`http://127.0.0.1:${ports.api}/healthz`, { child: wrangler, timeoutMs: 180_000 }),
    waitForHttp(`http://127.0.0.1:${ports.sidecar}/healthz`, { child: sidecar, name: "sidecar" }),
  ]);
  return Date.now();
}

/** kill -9 of every process of the stack. */
async function killStack() {
  const exits = Object.values(stack).map((child) =>
    isRunning(child) ? new Promise((resolve) => child.once("exit", resolve)) : null,
  );
  for (const child of Object.values(stack)) signalTree(child, "SIGKILL");
  await Promise.all(exits);
  return Date.now();
}

async function main() {
  const list = buildList(ROWS);
  const doh = await startDoh((name) => (DOMAINS.includes(name) ? { MX: [`10 mx.${name}.`] } : undefined));
  const rdap = await startRdap((name) => (DOMAINS.includes(name) ? "2012-06-01" : undefined));
  closers.push(doh.close, rdap.close);
  const receiver = await startReceiver();
  const ports = { api: await freePort(), sidecar: await freePort() };
  const base = `http://127.0.0.1:${ports.api}`;
  await applyMigrations({ persistTo: join(dir, "state"), quiet: true });
  await startStack(ports, { doh, rdap });
  log(`stack up on ${base} (logs: ${join(dir, "stack.log")}); ${ROWS} rows, ${list.paid} distinct paid`);

  const admin = adminClient(base, ADMIN_TOKEN);
  const account = (
    await admin.call("POST", "/accounts", { email: "crash@example.com", email_verified: true, plan: "enterprise" })
  ).data;
  await admin.call("POST", `/accounts/${account.id}/credits`, { bucket: "pack", amount: list.paid + 1_000 });
  const member = (await admin.call("POST", `/accounts/${account.id}/members`, { email: "crash@example.com" })).data;
  const key = (await admin.call("POST", `/accounts/${account.id}/keys/secret`, { user_id: member.user_id })).data.key;
  let last = 0;
  const api = async (path, init = {}) => {
    await sleep(Math.max(0, last + 300 - Date.now())); // under the key's 5 a second
    last = Date.now();
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    });
    return { status: res.status, text: await res.text() };
  };
  const job = async (id) => JSON.parse((await api(`/api/v1/email/bulk/${id}`)).text).data.job;

  const created = await api("/api/v1/email/bulk", {
    method: "POST",
    body: JSON.stringify({ emails: list.inputs, webhook_url: receiver.url }),
  });
  if (created.status !== 202) throw new Error(`create -> ${created.status} ${created.text.slice(0, 300)}`);
  const id = JSON.parse(created.text).data.job.id;
  let view = await job(id);
  while (view.processed < ROWS * KILL_AT) {
    if (view.status !== "processing" && view.status !== "queued") throw new Error(`run ${view.status} before the kill`);
    view = await job(id);
  }
  const killed1 = await killStack();
  log(`kill -9 #1 at ${view.processed}/${ROWS} rows processed`);
  const up1 = await startStack(ports, { doh, rdap });
  const atRestart = (await job(id)).processed;
  let resumedAt = null;
  const firstPost = receiver.next();
  while ((view = await job(id)).status !== "completed") {
    if (resumedAt === null && view.processed > atRestart) resumedAt = Date.now();
    if (Date.now() - up1 > 8 * 60_000)
      throw new Error(`run not completed 8 minutes after the restart: ${JSON.stringify(view)}`);
  }
  resumedAt ??= Date.now();
  log(
    `run resumed ${((resumedAt - up1) / 1000).toFixed(1)} s after the restart ` +
      `(${((resumedAt - killed1) / 1000).toFixed(1)} s after the kill), completed`,
  );

  await firstPost;
  const secondPost = receiver.next();
  const killed2 = await killStack();
  log("kill -9 #2 while the finished event's first attempt waited on the receiver");
  const up2 = await startStack(ports, { doh, rdap });
  await Promise.race([
    secondPost,
    sleep(5 * 60_000).then(() => Promise.reject(new Error("no redelivery within 5 minutes of the restart"))),
  ]);
  const redelivered = Date.now();
  log(
    `webhook redelivered ${((redelivered - up2) / 1000).toFixed(1)} s after the restart ` +
      `(${((redelivered - killed2) / 1000).toFixed(1)} s after the kill)`,
  );
  while ((view = await job(id)).webhook_status !== "delivered") await sleep(500);

  const charges = [];
  for (let page = 1; ; page++) {
    const rows = JSON.parse((await api(`/api/v1/account/ledger?page=${page}`)).text).data.entries;
    charges.push(...rows.filter((r) => r.kind === "charge" && String(r.request_id).startsWith(`bulk:${id}:`)));
    if (rows.length < 100) break;
  }
  const ledger = charges.reduce((sum, r) => sum - r.plan_delta - r.pack_delta, 0);
  const [, ...lines] = (await api(`/api/v1/email/bulk/${id}/results`)).text.trim().split("\n");
  const csv = lines.reduce((sum, line) => sum + Number(line.split(",").at(-2)), 0);
  const hooked = JSON.parse(receiver.posts.at(-1).body).job.credits_used;
  const figures = {
    expected: list.paid,
    ledger,
    job: view.credits_used,
    csv,
    webhook: hooked,
    csv_rows: lines.length,
    charge_rows: charges.length,
  };
  log(`charged: ${JSON.stringify(figures)}`);
  const distinctIds = new Set(charges.map((r) => r.request_id)).size === charges.length;
  const ok =
    [ledger, view.credits_used, csv, hooked].every((n) => n === list.paid) && lines.length === ROWS && distinctIds;
  console.log(ok ? "1 passed, 0 failed" : "0 passed, 1 failed");
  return ok ? 0 : 1;
}

async function cleanup() {
  if (stack) for (const child of Object.values(stack)) signalTree(child, "SIGKILL");
  await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
  closeSync(logFd);
  rmSync(dir, { recursive: true, force: true });
}

const deadline = setTimeout(() => {
  console.error(`[crash] not done after ${TIMEOUT_MS / 1000} s`);
  cleanup().finally(() => process.exit(1));
}, TIMEOUT_MS);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => cleanup().finally(() => process.exit(130)));
try {
  process.exitCode = await main();
} catch (err) {
  console.error(`[crash] ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  if (process.exitCode) console.error(`[crash] stack output kept in ${join(dir, "stack.log")}`);
  // The verdict is in: a receiver connection still open (the hanging route) must not keep this process, and CI,
  // waiting.
  await Promise.race([cleanup().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  process.exit(process.exitCode ?? 0);
}
