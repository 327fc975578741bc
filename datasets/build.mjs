#!/usr/bin/env node
/**
 * Builds the email datasets into versioned, deterministic snapshots: datasets/snapshots/<name>.json plus manifest.json.
 * Same inputs give byte-identical files. Run with `npm run datasets:build`; see datasets/README.md.
 */
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { canonicalJson, snapshotVersion } from "./lib/canonical.mjs";
import { mxProviderPatterns, providerUsernameRules, testAddresses } from "./lib/curated.mjs";
import { providerRules } from "./lib/provider-rules.mjs";
import { providerLists, relayAllowlist, roleAddresses, typoDomains } from "./lib/email-lists.mjs";
import { DATASETS_DIR, loadInputs } from "./lib/inputs.mjs";

export const DEFAULT_OUT_DIR = join(DATASETS_DIR, "snapshots");

export const SNAPSHOT_NAMES = [
  "disposable-domains",
  "free-provider-domains",
  "mx-provider-patterns",
  "provider-rules",
  "provider-username-rules",
  "role-addresses",
  "test-addresses",
  "typo-domains",
];

/** Packages first, then curated files, each by name. */
const bySourceName = (a, b) => {
  const [x, y] = [a.package ? `0${a.package}` : `1${a.file}`, b.package ? `0${b.package}` : `1${b.file}`];
  return x < y ? -1 : x > y ? 1 : 0;
};

/** What counts as one record of a snapshot's data. */
export function countRecords(name, data) {
  if (name === "typo-domains") return Object.keys(data.corrections).length;
  if (name === "test-addresses") return data.addresses.length;
  return data.length;
}

function snapshot(name, sources, data) {
  const sorted = [...sources].sort(bySourceName);
  return { name, version: snapshotVersion(sorted, data), records: countRecords(name, data), sources: sorted, data };
}

/** Every snapshot, in memory. */
export async function buildSnapshots({ log = () => {} } = {}) {
  const inputs = await loadInputs();
  const { packages: p, curated: c } = inputs;

  const typo = typoDomains(inputs, log);
  const rules = providerUsernameRules(inputs);
  const allowlist = relayAllowlist(inputs, log);
  const lists = providerLists(inputs, { typo, ruleDomains: rules.flatMap((rule) => rule.domains), allowlist }, log);
  const role = roleAddresses(inputs, log);

  // Every input that can change a list is named, including those that only protect or remove entries.
  const listInputs = [p.disposable, p.mailchecker, p.free, p.misspelled, c.allowlist, c.typo, c.rules].map(
    (x) => x.source,
  );

  return [
    snapshot("disposable-domains", listInputs, lists.disposable),
    snapshot(
      "free-provider-domains",
      listInputs.filter((s) => s.package !== "mailchecker"),
      lists.free,
    ),
    snapshot("mx-provider-patterns", [c.mx.source], mxProviderPatterns(inputs)),
    snapshot("provider-rules", [c.providerRules.source], providerRules(inputs)),
    snapshot("provider-username-rules", [c.rules.source], rules),
    snapshot("role-addresses", [p.role.source, c.roleExclusions.source], role),
    snapshot("test-addresses", [c.test.source], testAddresses(inputs)),
    snapshot("typo-domains", [p.misspelled.source, c.typo.source], typo),
  ];
}

/** Builds and writes every snapshot and the manifest into `outDir`; removes snapshot files no longer built there. */
export async function build({ outDir = DEFAULT_OUT_DIR, log = console.log } = {}) {
  const dir = resolve(outDir);
  const snapshots = await buildSnapshots({ log });
  await mkdir(dir, { recursive: true });

  const written = [];
  for (const { name, version, records, sources, data } of snapshots) {
    const file = `${name}.json`;
    const body =
      `{"name":${JSON.stringify(name)},"version":${JSON.stringify(version)},"records":${records},` +
      `"sources":${canonicalJson(sources)},"data":${canonicalJson(data)}}\n`;
    await writeFile(join(dir, file), body);
    written.push({ name, version, records, file, bytes: Buffer.byteLength(body) });
  }
  const manifest = { snapshots: written.map(({ name, version, records, file }) => ({ name, version, records, file })) };
  await writeFile(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);

  const keep = new Set(["manifest.json", ...written.map((w) => w.file)]);
  for (const entry of await readdir(dir)) {
    if (entry.endsWith(".json") && !keep.has(entry)) await rm(join(dir, entry));
  }

  for (const w of written)
    log(
      `${w.name.padEnd(24)} ${w.version}  ${String(w.records).padStart(6)} records  ` +
        `${(w.bytes / 1024).toFixed(1).padStart(7)} KiB`,
    );
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  build().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
