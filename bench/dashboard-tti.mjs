// @ts-check
// `npm run bench:dashboard-tti`: time to interactive of the dashboard's usage page on a local stack, in headless
// Chromium: from navigation start to the three uPlot charts drawn (each chart's element gets `data-drawn` from the page
// script) and the next frame painted. Median of 5 loads (BENCH_LOADS), each in a fresh browser context (empty HTTP
// cache, the session cookie carried over), so every load fetches the HTML, usage.js (uPlot) and both sheets.
//
// Starts its own `wrangler dev` on a fresh local database (a free port; LOCAL_PORT_RANGE=a-b picks from a range), signs
// a new account in through the operator's sign-in link, makes a few API lookups so the charts have data, and writes
// bench/results/dashboard-tti.json. Needs a Chromium (scripts/browser.mjs finds or installs one).
import { mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { ensureBrowser } from "../scripts/browser.mjs";
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { ROOT, startLocalWorker } from "../scripts/lib/local.mjs";

const LOADS = size("BENCH_LOADS", 5, 1);
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS = join(ROOT, "bench", "results");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Runs in the page before its own scripts: notes when the last chart is drawn, then waits one frame for its paint. */
function watchCharts() {
  const done = () =>
    document.querySelectorAll("[data-chart]").length === 3 && !document.querySelector("[data-chart]:not([data-drawn])");
  const observer = new MutationObserver(() => {
    if (!done()) return;
    observer.disconnect();
    const drawnAt = performance.now();
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        /** @type {any} */ (window).__tti = { drawnAt, paintedAt: performance.now() };
      }),
    );
  });
  observer.observe(document, { subtree: true, attributes: true, attributeFilter: ["data-drawn"] });
}

async function call(base, method, path, body, key = null) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key ?? ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = await response.json();
  if (!envelope.success) throw new Error(`${method} ${path} -> ${response.status} ${JSON.stringify(envelope.error)}`);
  return envelope.data;
}

const held = resources();
await runBench({
  main,
  held,
  timeoutMs: Number(process.env.BENCH_TIMEOUT_MS ?? 10 * 60_000),
  logHint: "wrangler output: bench/results/dashboard-tti-wrangler.log",
});

async function main() {
  const found = await ensureBrowser();
  if (!found.executablePath) {
    console.error(`[bench] ${found.reason}`);
    return 1;
  }
  mkdirSync(RESULTS, { recursive: true });
  const dir = held.tempDir("dashboard-tti-");
  const { base } = await startLocalWorker({
    persistTo: join(dir, "state"),
    stdio: held.fd(openSync(join(RESULTS, "dashboard-tti-wrangler.log"), "w")),
    track: (child) => held.process(child),
    vars: {
      ADMIN_TOKEN,
      SMTP_SIDECAR_SECRET: "bench-sidecar-secret-0123456789",
      MAIL_LINK_SECRET: "bench-mail-link-secret-0123456789abcdef",
    },
  });
  console.log(`[bench] wrangler dev answers on ${base}`);
  const email = `tti-${Date.now()}@example.com`;
  const account = await call(base, "POST", "/admin/v1/accounts", { email, email_verified: true, plan: "free" });
  const member = await call(base, "POST", `/admin/v1/accounts/${account.id}/members`, { email });
  const { key } = await call(base, "POST", `/admin/v1/accounts/${account.id}/keys/secret`, { user_id: member.user_id });
  for (const local of ["deliverable", "role", "disposable", "undeliverable"])
    await call(base, "POST", "/api/v1/email", { email: `${local}@service.test` }, key);
  const { url } = await call(base, "POST", `/admin/v1/accounts/${account.id}/sign-in-link`, { email });

  const browser = held.closer(await chromium.launch({ executablePath: found.executablePath, headless: true }));
  const signIn = await browser.newContext();
  const page = await signIn.newPage();
  await page.goto(`${base}${new URL(url).pathname}`);
  await page.getByRole("button", { name: "Continue to the dashboard" }).click();
  await page.waitForURL(`${base}/dashboard/keys`);
  const storageState = await signIn.storageState();
  await signIn.close();

  const loads = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext({ storageState });
    const tab = await context.newPage();
    await tab.addInitScript(watchCharts);
    await tab.goto(`${base}/dashboard/usage`);
    await tab.waitForFunction(() => /** @type {any} */ (window).__tti, null, { timeout: 30_000 });
    const load = await tab.evaluate(() => {
      const [nav] = /** @type {PerformanceNavigationTiming[]} */ (performance.getEntriesByType("navigation"));
      const tti = /** @type {any} */ (window).__tti;
      return {
        // Interactive once the DOM is ready and the charts are on screen (the page script runs before domInteractive).
        tti_ms: Math.max(nav.domContentLoadedEventEnd, tti.paintedAt),
        first_byte_ms: nav.responseStart,
        dom_interactive_ms: nav.domInteractive,
        dom_content_loaded_ms: nav.domContentLoadedEventEnd,
        charts_drawn_ms: tti.drawnAt,
        charts_painted_ms: tti.paintedAt,
        transfer_bytes: performance
          .getEntriesByType("resource")
          .reduce((sum, r) => sum + /** @type {PerformanceResourceTiming} */ (r).transferSize, nav.transferSize),
      };
    });
    loads.push(Object.fromEntries(Object.entries(load).map(([k, v]) => [k, Math.round(v)])));
    await context.close();
  }
  const summary = Object.fromEntries(Object.keys(loads[0]).map((k) => [k, median(loads.map((l) => l[k]))]));
  const columns = Object.keys(loads[0]);
  console.log(`load    ${columns.map((c) => c.padEnd(22)).join("")}(ms from navigation start; bytes)`);
  loads.forEach((l, i) =>
    console.log(`${String(i + 1).padEnd(8)}${columns.map((c) => String(l[c]).padEnd(22)).join("")}`),
  );
  console.log(`median  ${columns.map((c) => String(summary[c]).padEnd(22)).join("")}`);
  console.log(
    `[bench] usage page time to interactive (median of ${LOADS} cold loads): ${summary.tti_ms} ms ` +
      `(first byte ${summary.first_byte_ms} ms, charts painted ${summary.charts_painted_ms} ms)`,
  );
  writeFileSync(
    join(RESULTS, "dashboard-tti.json"),
    `${JSON.stringify({ measured_at: new Date().toISOString(), loads, median: summary }, null, 2)}\n`,
  );
  // A refused call or a chart never drawn threw above; the times must be there.
  return checkRun({
    bench: "dashboard-tti",
    figures: {
      "tti ms": summary.tti_ms,
      "first byte ms": summary.first_byte_ms,
      "transfer bytes": summary.transfer_bytes,
    },
  });
}
