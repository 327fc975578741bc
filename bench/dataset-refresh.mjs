// @ts-check
// `npm run bench:refresh`: what one scheduled refresh of the largest dataset costs, measured on the local stack.
//
// Builds a GLEIF golden copy in the publisher's format: a zip (deflated, data descriptors, as GLEIF writes it) of one
// CSV named `YYYYMMDD-0800-gleif-goldencopy-lei2-golden-copy.csv`, with the LEI-CDF columns the sample carries padded
// to the real file's ~340 columns (mostly empty quoted fields, as in the real file), BENCH_ROWS rows (default
// 500,000; the real file has ~2.9 M) with checksum-valid LEIs. Serves it from a local HTTP server behind a
// `latest.csv` redirect like GLEIF's, starts the Worker under `wrangler dev` on a fresh database with
// REFRESH_URL_GLEIF_LEI pointing there (every other dataset `off`), starts the refresh through the operator API and
// polls `/admin/v1/dataset-refresh` until it settles.
//
// Prints one JSON line: rows, file sizes, wall time per phase (fetch = download + inflate into R2; import = the queue
// steps; sweep), rows/s, and workerd's RSS before the run and its peak during it (sampled every 250 ms: the Worker's
// isolate plus the local D1/R2 simulators, so an upper bound of what the Worker itself holds). Then refreshes again
// with the same file (a new generation beside the first, the first swept). Knobs: BENCH_ROWS, BENCH_COLUMNS (340),
// BENCH_TIMEOUT_MS (60 min).
//
// BENCH_DATASET=uk-onspd | uk-os-open-names | fr-ban measures an address register instead (bench/lib/address-files.mjs
// builds it in its publisher's format; BENCH_ROWS defaults to the real file's size), refreshed once;
// BENCH_DATASET=ip-city refreshes the installed package's GeoLite2 City MMDB files (the publisher's full files). Every
// run also reports workerd's CPU seconds per phase (the Worker with the local D1/R2 simulators: an upper bound of the
// Worker's).
import { createReadStream, createWriteStream, mkdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { once } from "node:events";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { crc32, createDeflateRaw } from "node:zlib";
import { ADDRESS_BENCH } from "./lib/address-files.mjs";
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { sampleTree } from "./lib/proc.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const DATASET = process.env.BENCH_DATASET ?? "gleif-lei";
const ADDRESS = ADDRESS_BENCH[DATASET];
if (DATASET !== "gleif-lei" && !ADDRESS)
  throw new Error(`BENCH_DATASET: gleif-lei, ${Object.keys(ADDRESS_BENCH).join(", ")}`);
const ROWS = size("BENCH_ROWS", ADDRESS?.fullRows ?? 500_000, 300);
const COLUMNS = size("BENCH_COLUMNS", 340, 60);
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 60 * 60_000);
const ADMIN_TOKEN = "bench-admin-token";
const MEMBER = "20261125-0800-gleif-goldencopy-lei2-golden-copy.csv";
const OFF = [
  "IP_TOR_EXITS",
  "IP_COUNTRY_V4",
  "IP_COUNTRY_V6",
  "IP_CITY_V4",
  "IP_CITY_V6",
  "IP_ASN_V4",
  "IP_ASN_V6",
  "UK_COMPANIES_HOUSE",
  "GLEIF_LEI",
  "GLEIF_LEI_DELTA",
  "UK_ONSPD",
  "UK_OS_OPEN_NAMES",
  "FR_BAN",
];

const held = resources();
let workDir = null;

const lei = (base18) => {
  const digits = [...`${base18}00`].map((c) => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55))).join("");
  return `${base18}${String(98 - Number(BigInt(digits) % 97n)).padStart(2, "0")}`;
};

const HEADER = [
  "LEI",
  "Entity.LegalName",
  "Entity.LegalAddress.Country",
  "Entity.EntityStatus",
  "Registration.RegistrationStatus",
  "Entity.RegistrationAuthority.RegistrationAuthorityID",
  "Entity.RegistrationAuthority.RegistrationAuthorityEntityID",
];
const COUNTRIES = ["GB", "DE", "FR", "US", "JP", "NL", "IT", "ES", "SE", "CA"];

/** Writes the CSV straight into a zip's deflate stream; returns the archive's path and the CSV's size. */
async function buildGoldenCopy(dir) {
  const path = join(dir, `${MEMBER}.zip`);
  const out = createWriteStream(path);
  const name = Buffer.from(MEMBER);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(45, 4);
  local.writeUInt16LE(0x0008, 6); // sizes and CRC follow the data (GLEIF's zips are streamed too)
  local.writeUInt16LE(8, 8);
  local.writeUInt16LE(name.length, 26);
  out.write(local);
  out.write(name);
  const deflate = createDeflateRaw({ level: 6 });
  let compressed = 0;
  deflate.on("data", (chunk) => {
    compressed += chunk.length;
    if (!out.write(chunk)) deflate.pause(), out.once("drain", () => deflate.resume());
  });
  let crc = 0;
  let size = 0;
  const pad = Array.from({ length: Math.max(0, COLUMNS - HEADER.length) }, (_, i) => `"Extra.Column.${i}"`).join(",");
  const empty = Array.from({ length: Math.max(0, COLUMNS - HEADER.length) }, () => '""').join(",");
  const write = async (text) => {
    const bytes = Buffer.from(text);
    crc = crc32(bytes, crc);
    size += bytes.length;
    if (!deflate.write(bytes)) await once(deflate, "drain");
  };
  await write(`${HEADER.map((h) => `"${h}"`).join(",")},${pad}\n`);
  let batch = "";
  for (let i = 0; i < ROWS; i++) {
    const id = lei(`BNCH${String(i).padStart(14, "0")}`);
    const country = COUNTRIES[i % COUNTRIES.length];
    const status = i % 17 === 0 ? "INACTIVE" : "ACTIVE";
    const registration = i % 23 === 0 ? "LAPSED" : "ISSUED";
    const ra = country === "GB" ? `"RA000585","${String(10_000_000 + i).slice(-8)}"` : '"RA888888",""';
    batch += `"${id}","BENCH ENTITY ${i} LIMITED","${country}","${status}","${registration}",${ra},${empty}\n`;
    if (batch.length > 1 << 20) await write(batch), (batch = "");
  }
  await write(batch);
  deflate.end();
  await once(deflate, "end");
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(crc, 4);
  descriptor.writeUInt32LE(compressed, 8);
  descriptor.writeUInt32LE(size, 12);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(45, 4);
  central.writeUInt16LE(45, 6);
  central.writeUInt16LE(0x0008, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(compressed, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(name.length, 28);
  const cdOffset = 30 + name.length + compressed + descriptor.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + name.length, 12);
  end.writeUInt32LE(cdOffset, 16);
  for (const part of [descriptor, central, name, end]) if (!out.write(part)) await once(out, "drain");
  out.end();
  await once(out, "finish");
  return { path, csvBytes: size, zipBytes: statSync(path).size };
}

/** GLEIF's `latest.csv` redirecting to the dated archive, served from disk. */
async function serve(path, name = `${MEMBER}.zip`, others = []) {
  const server = createServer((req, res) => {
    if (req.url === "/latest.csv") return res.writeHead(302, { location: `/${MEMBER}.zip` }).end();
    const other = others.find((f) => req.url === `/${f.name}`);
    if (!other && req.url !== `/${name}`) return res.writeHead(404).end();
    const file = other?.path ?? path;
    res.writeHead(200, {
      "content-type": "application/zip",
      "content-length": statSync(file).size,
      etag: `"bench-${Date.now()}"`,
    });
    createReadStream(file).pipe(res);
  });
  held.closer(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}`;
}

/** Starts a forced refresh and polls until it settles; times each phase and samples workerd's RSS. */
async function refresh(admin, pid, name = "gleif-lei") {
  const started = performance.now();
  const phases = {};
  let phase = "fetch";
  let mark = started;
  // workerd's RSS also holds the local D1 and R2 simulators: its size before the run is the reference.
  const before = sampleTree(pid).workerdRssBytes;
  let peak = 0;
  const cpu = {};
  let cpuMark = sampleTree(pid).workerdCpuSeconds;
  const sampler = setInterval(() => (peak = Math.max(peak, sampleTree(pid).workerdRssBytes)), 250);
  try {
    await admin.call("POST", `/dataset-refresh/${name}`);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Locally one isolate serves everything: while a step inflates or parses, the poll waits (30 s timeout): retry.
      const { data } = await admin
        .call("GET", "/dataset-refresh")
        .catch((err) => (err.name === "TimeoutError" ? { data: null } : Promise.reject(err)));
      if (!data) continue;
      const view = data.datasets.find((d) => d.name === name).refresh;
      const now = performance.now();
      if (view.phase !== phase) {
        phases[phase] = Math.round(now - mark) / 1000;
        mark = now;
        const cpuNow = sampleTree(pid).workerdCpuSeconds;
        cpu[phase] = Math.round((cpuNow - cpuMark) * 100) / 100;
        cpuMark = cpuNow;
        phase = view.phase;
      }
      if (view.status !== "running" && view.phase === null) {
        if (view.status !== "ok") throw new Error(`refresh ${view.status}: ${view.error}`);
        return {
          seconds: Math.round(now - started) / 1000,
          phases,
          workerd_cpu_seconds: cpu,
          generation: view.generation,
          workerd_rss_before_bytes: before,
          workerd_peak_rss_bytes: peak,
        };
      }
    }
  } finally {
    clearInterval(sampler);
  }
}

/** An address register: built in its publisher's format, served as its file, refreshed once. */
async function mainAddress() {
  console.log(`[bench] writing ${DATASET} in its publisher's format, ${ROWS} records`);
  const built = performance.now();
  const file = await ADDRESS.build(workDir, ROWS);
  console.log(
    `[bench] ${file.textBytes} bytes of CSV, ${file.fileBytes} compressed, in ` +
      `${Math.round(performance.now() - built) / 1000} s`,
  );
  const files = file.files ?? [file];
  const url = await serve(file.path, file.name, files);
  const served = Object.fromEntries(
    (ADDRESS.urlVars ?? [ADDRESS.urlVar]).map((v, i) => [v, `${url}/${files[i].name}`]),
  );
  const vars = { ADMIN_TOKEN, ...Object.fromEntries(OFF.map((n) => [`REFRESH_URL_${n}`, "off"])), ...served };
  const { base, child: worker } = await startWorker({
    held,
    dir: workDir,
    vars,
    log: "refresh-wrangler.log",
    frozen: true,
    logLevel: "warn",
  });
  const admin = adminClient(base, ADMIN_TOKEN);
  const run = await refresh(admin, worker.pid, DATASET);
  // ip-city's rows are what the walk wrote (the package's files are not built with a row count).
  const records =
    DATASET === "ip-city"
      ? (await admin.call("GET", "/ip-datasets")).data.datasets.find((d) => d.name === "ip-city").records
      : ROWS;
  console.log(
    JSON.stringify({
      dataset: DATASET,
      records_in_file: records,
      text_bytes: file.textBytes,
      file_bytes: file.fileBytes,
      run: { ...run, records_per_second: Math.round(records / run.seconds) },
    }),
  );
  // A refresh that failed threw above.
  return checkRun({
    bench: "dataset-refresh",
    figures: { records, "records/s": Math.round(records / run.seconds) },
  });
}

async function main() {
  mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
  workDir = held.tempDir("bench-refresh-");
  if (ADDRESS) return mainAddress();
  console.log(`[bench] writing a GLEIF-format golden copy of ${ROWS} rows x ${COLUMNS} columns`);
  const built = performance.now();
  const file = await buildGoldenCopy(workDir);
  console.log(
    `[bench] ${file.csvBytes} bytes of CSV, ${file.zipBytes} zipped, in ` +
      `${Math.round(performance.now() - built) / 1000} s`,
  );
  const url = await serve(file.path);
  const vars = {
    ADMIN_TOKEN,
    ...Object.fromEntries(OFF.map((n) => [`REFRESH_URL_${n}`, "off"])),
    REFRESH_URL_GLEIF_LEI: `${url}/latest.csv`,
  };
  const { base, child: worker } = await startWorker({
    held,
    dir: workDir,
    vars,
    log: "refresh-wrangler.log",
    frozen: true,
    logLevel: "warn",
  });
  const admin = adminClient(base, ADMIN_TOKEN);
  const first = await refresh(admin, worker.pid);
  const second = await refresh(admin, worker.pid);
  const { data } = await admin.call("GET", "/registers");
  const records = data.registers.find((r) => r.name === "gleif-lei").records;
  const summary = {
    dataset: "gleif-lei",
    rows: ROWS,
    records,
    columns: COLUMNS,
    csv_bytes: file.csvBytes,
    zip_bytes: file.zipBytes,
    first: { ...first, rows_per_second: Math.round(records / first.seconds) },
    second: { ...second, rows_per_second: Math.round(records / second.seconds) },
  };
  console.log(JSON.stringify(summary));
  return checkRun({
    bench: "dataset-refresh",
    figures: {
      records,
      "first rows/s": summary.first.rows_per_second,
      "second rows/s": summary.second.rows_per_second,
    },
    // Rows of the file that the refresh did not install.
    errored: Math.abs(ROWS - records),
  });
}

await runBench({
  main,
  held,
  timeoutMs: TIMEOUT_MS,
  logHint: "wrangler output: bench/results/refresh-wrangler.log",
});
