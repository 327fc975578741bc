// @ts-check
// `npm run bench:autocomplete`: a prefix query of address autocomplete against an index the size of the real BAN,
// beside the trivial route and an address lookup, in the same run.
//
// Set-up (torn down at the end): the Worker under `wrangler dev` on a fresh local database (bench/lib/stack.mjs). A
// BAN-format file of BENCH_ADDRESSES addresses (2,000,000; the real national file holds about 26 M) is generated
// locally: `;`-separated, the BAN's 23 columns, 20 house numbers a street (every 7th with `bis`), street names drawn
// from French street types, articles and a vocabulary of made-up words, 15 streets a postcode. It is loaded through
// the operator import (scripts/import-address.mjs, as `npm run datasets:import-address -- fr-ban file` loads the
// real one), which writes the autocomplete index beside the address tables; `us-zip-codes` is loaded from its package
// for the address lookups.
//
// Measured, one request at a time, in alternating blocks: GET /healthz (the trivial route), POST /api/v1/address of a
// fresh US address (verified, 1 credit), and GET /api/v1/address/autocomplete?country=FR of a fresh prefix query (a
// house number, a street type, the first 3-6 letters of a street's word: `12 rue de la vob`), never a repeat.
// Reported: p50/p90/p99 of each and the ratio of the autocomplete p50 to the address p50 (target <= 1.5), and the
// index's size (bytes of `autocomplete_tokens` in the D1 file, from SQLite's dbstat) per million addresses.
//
// BENCH_SMOKE=1 runs it at a tiny size (4,000 addresses, 60 requests a route) and, like every bench under
// `npm run bench:smoke`, ends with a `[bench:check]` line: a figure missing or zero, or any answer that was not 200,
// fails the run. Writes bench/results/autocomplete.json. Exits 1 on an unexpected answer, or with BENCH_ENFORCE=1
// when the target is missed. Bounded by BENCH_TIMEOUT_MS (40 min).
import { createWriteStream, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DatabaseSync } from "node:sqlite";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";
import { importAddressDataset } from "../scripts/import-address.mjs";
import { runBench } from "./lib/harness.mjs";
import { SMOKE, checkRun, size } from "./lib/report.mjs";
import { benchAccount, keepAliveAgent, latencySummary, round2, send } from "./lib/load.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";

requireNode22();

const ADDRESSES = size("BENCH_ADDRESSES", 2_000_000, 4_000);
const REQUESTS = size("BENCH_REQUESTS", 600, 60);
const ROUNDS = size("BENCH_ROUNDS", 6, 2);
const TARGET_RATIO = Number(process.env.BENCH_TARGET_RATIO ?? 1.5);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 40 * 60_000);
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const PER_STREET = 20;
const STREETS_PER_POSTCODE = 15;

const held = resources();

/** A small deterministic generator (mulberry32): the same file every run. */
function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rnd = random(52);
const pick = (list) => list[Math.floor(rnd() * list.length)];
const SYLLABLES = (
  "ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo la le li lo lu ma me mi mo mu na ne ni no nu " +
  "pa pe pi po ra re ri ro ru sa se si so ta te ti to va ve vi vo"
).split(" ");
const word = () => {
  const w = Array.from({ length: 2 + Math.floor(rnd() * 2) }, () => pick(SYLLABLES)).join("");
  return w[0].toUpperCase() + w.slice(1);
};
const VOCABULARY = Array.from({ length: 5_000 }, word);
const TYPES = ["Rue", "Rue", "Rue", "Avenue", "Boulevard", "Place", "Chemin", "Impasse", "Allée", "Route", "Quai"];
const ARTICLES = ["de la ", "du ", "des ", "de l'", "", "", "Saint-"];

/** Street `i`: its name, postcode and commune (deterministic). */
function street(i) {
  const r = random(i + 1);
  const at = (list) => list[Math.floor(r() * list.length)];
  const name = `${at(TYPES)} ${at(ARTICLES)}${at(VOCABULARY)}${r() < 0.3 ? ` ${at(VOCABULARY)}` : ""}`;
  const n = Math.floor(i / STREETS_PER_POSTCODE);
  const postcode = String(1000 + (n % 94_000)).padStart(5, "0");
  return { name, postcode, commune: `${VOCABULARY[n % VOCABULARY.length]}-sur-${VOCABULARY[(n * 7) % 5_000]}` };
}

/** The BAN's CSV layout, one record per address. */
async function writeBan(path, addresses) {
  const out = createWriteStream(path);
  const write = async (text) => {
    if (!out.write(text)) await once(out, "drain");
  };
  await write(
    "id;id_fantoir;numero;rep;nom_voie;code_postal;code_insee;nom_commune;code_insee_ancienne_commune;" +
      "nom_ancienne_commune;x;y;lon;lat;type_position;alias;nom_ld;libelle_acheminement;nom_afnor;source_position;" +
      "source_nom_voie;certification_commune;cad_parcelles\n",
  );
  let lines = "";
  for (let i = 0; i < addresses; i++) {
    const s = street(Math.floor(i / PER_STREET));
    const numero = (i % PER_STREET) + 1;
    lines +=
      `${s.postcode}_b${i};${s.postcode}_B;${numero};${i % 7 === 0 ? "bis" : ""};${s.name};${s.postcode};` +
      `${s.postcode};${s.commune};;;0;0;2.3;48.8;entrée;;;${s.commune.toUpperCase()};${s.name.toUpperCase()};` +
      "commune;commune;1;\n";
    if (lines.length > 1 << 16) await write(lines), (lines = "");
  }
  await write(lines);
  out.end();
  await once(out, "finish");
}

/** A prefix query nobody asked before: a house number, the street's type, the first letters of one of its words. */
function freshQuery(streets, seen) {
  for (;;) {
    const s = street(Math.floor(rnd() * streets));
    const words = s.name.split(/[\s'-]+/).filter((w) => w.length > 3 && w !== s.name.split(" ")[0]);
    const w = pick(words.length ? words : [s.name]);
    const q = `${1 + Math.floor(rnd() * PER_STREET)} ${s.name.split(" ")[0].toLowerCase()} ${w
      .slice(0, 3 + Math.floor(rnd() * 4))
      .toLowerCase()}`;
    if (!seen.has(q)) return (seen.add(q), q);
  }
}

/** The local D1 file holding the autocomplete index (`REFERENCE_ADDRESS`'s: src/db/reference.ts). */
function d1File(persistTo) {
  const dir = join(persistTo, "v3", "d1");
  const files = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true }))
      if (entry.isDirectory()) walk(join(d, entry.name));
      else if (entry.name.endsWith(".sqlite")) files.push(join(d, entry.name));
  };
  walk(dir);
  const found = files.find((file) => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'autocomplete_tokens'").get() !== undefined;
    } finally {
      db.close();
    }
  });
  if (!found) throw new Error(`no local D1 file under ${dir} holds autocomplete_tokens`);
  return found;
}

function tableBytes(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all();
    return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
  } finally {
    db.close();
  }
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const workDir = held.tempDir("autocomplete-bench-");
  const banPath = join(workDir, "adresses-bench.csv");
  const generated = performance.now();
  await writeBan(banPath, ADDRESSES);
  console.log(
    `[bench] wrote ${ADDRESSES} BAN addresses (${round2(statSync(banPath).size / 2 ** 20)} MB) in ` +
      `${round2((performance.now() - generated) / 1000)} s`,
  );
  const { base } = await startWorker({
    held,
    dir: workDir,
    vars: { ADMIN_TOKEN },
    log: "autocomplete-wrangler.log",
    frozen: process.env.BENCH_FROZEN !== "0",
    logLevel: process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn",
  });
  const imported = await importAddressDataset({
    dataset: "fr-ban",
    files: [banPath],
    version: "2026-11-29-bench",
    coverage: undefined, // from the file's size, as the importer decides for a real file
    baseUrl: base,
    token: ADMIN_TOKEN,
    log: console.log,
  });
  // Measured before anything else is indexed: the BAN's index alone.
  const bytes = tableBytes(d1File(join(workDir, "state")));
  // The package's own version and coverage (both undefined: the importer reads them from the package).
  const zip = { dataset: "us-zip-codes", version: undefined, coverage: undefined };
  await importAddressDataset({ ...zip, baseUrl: base, token: ADMIN_TOKEN, log: console.log });
  const indexBytes = bytes.autocomplete_tokens ?? 0;
  const perMillion = Math.round(indexBytes / (ADDRESSES / 1_000_000));
  console.log(
    `[bench] autocomplete_tokens: ${round2(indexBytes / 2 ** 20)} MB, ${round2(perMillion / 2 ** 20)} MB per ` +
      `million addresses (address_streets ${round2((bytes.address_streets ?? 0) / 2 ** 20)} MB, address_premises ` +
      `${round2((bytes.address_premises ?? 0) / 2 ** 20)} MB)`,
  );

  const admin = adminClient(base, ADMIN_TOKEN);
  const pool = await benchAccount(admin, 12);
  const agent = keepAliveAgent(2);
  const streets = Math.ceil(ADDRESSES / PER_STREET);
  const seen = new Set();
  let serial = 0;

  // Every query is answered with suggestions: a bench of empty answers would measure nothing.
  const failures = [];
  let empty = 0;
  for (let i = 0; i < 20; i++) {
    const q = freshQuery(streets, seen);
    const res = await send(agent, `${base}/api/v1/address/autocomplete?${new URLSearchParams({ q, country: "FR" })}`, {
      key: await pool.next(),
      read: true,
    });
    if (res.status !== 200) failures.push(`autocomplete ${q}: ${res.status} ${res.text?.slice(0, 200)}`);
    else if (JSON.parse(res.text).data.suggestions.length === 0) empty += 1;
  }
  if (empty > 2) failures.push(`${empty} of 20 prefix queries had no suggestion`);

  const routes = [
    measured("GET /healthz", async () => ({ url: `${base}/healthz` })),
    measured("POST /api/v1/address", async () => ({
      url: `${base}/api/v1/address`,
      method: "POST",
      key: await pool.next(),
      body: {
        address: { line1: `${++serial} Bench Street`, locality: "Springfield", postcode: "62701", country: "US" },
      },
    })),
    measured("GET /api/v1/address/autocomplete", async () => {
      const query = new URLSearchParams({ q: freshQuery(streets, seen), country: "FR" });
      return { url: `${base}/api/v1/address/autocomplete?${query}`, key: await pool.next() };
    }),
  ];
  for (const r of routes) await r.run(agent, Math.min(30, REQUESTS), false);
  const perBlock = Math.ceil(REQUESTS / ROUNDS);
  for (let round = 0; round < ROUNDS; round++)
    for (const r of round % 2 === 0 ? routes : [...routes].reverse()) await r.run(agent, perBlock, true);
  const summaries = routes.map((r) => r.summary());
  for (const s of summaries) if (s.non_200) failures.push(`${s.route}: ${JSON.stringify(s.statuses)}`);
  const [trivial, address, complete] = summaries;
  const ratio = round2(complete.p50_ms / address.p50_ms);
  for (const s of summaries)
    console.log(`[bench] ${s.route}: p50 ${s.p50_ms} ms, p90 ${s.p90_ms} ms, p99 ${s.p99_ms} ms (${s.requests})`);
  console.log(`[bench] autocomplete p50 / address p50 = ${ratio} (target <= ${TARGET_RATIO})`);

  const result = {
    addresses: ADDRESSES,
    smoke: SMOKE,
    import: imported,
    index_bytes: indexBytes,
    index_bytes_per_million_addresses: perMillion,
    table_bytes: bytes,
    routes: summaries,
    autocomplete_to_address_p50: ratio,
    target_ratio: TARGET_RATIO,
    failures,
  };
  writeFileSync(join(RESULTS_DIR, "autocomplete.json"), `${JSON.stringify(result, null, 2)}\n`);
  const figures = {
    healthz_p50_ms: trivial.p50_ms,
    address_p50_ms: address.p50_ms,
    autocomplete_p50_ms: complete.p50_ms,
    autocomplete_p99_ms: complete.p99_ms,
    index_bytes_per_million_addresses: perMillion,
  };
  // Each failure is a route that answered other than 200, or a step that went wrong: the run is not believed.
  const checked = checkRun({ bench: "autocomplete", figures, errored: failures.length });
  if (checked) return checked;
  if (process.env.BENCH_ENFORCE === "1" && ratio > TARGET_RATIO) return 1;
  return 0;
}

/** A route measured one request at a time; `make()` gives each request's URL and options (a fresh query each time). */
function measured(name, make) {
  const latencies = [];
  const statuses = {};
  return {
    async run(agent, n, record) {
      for (let i = 0; i < n; i++) {
        const { url, ...options } = await make();
        const { status, ms } = await send(agent, url, options);
        if (!record && status !== 200) throw new Error(`${name} answered ${status} during warm-up`);
        if (record) latencies.push(ms), (statuses[status] = (statuses[status] ?? 0) + 1);
      }
    },
    summary: () => latencySummary(name, Float64Array.from(latencies).sort(), statuses),
  };
}

await runBench({
  main,
  held,
  timeoutMs: TIMEOUT_MS,
  logHint: "wrangler output: bench/results/autocomplete-wrangler.log",
});
