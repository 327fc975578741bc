import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION_PATTERN } from "../lib/canonical.mjs";
import { MAX_PREFIX_DIGITS as LOOKUP_MAX_PREFIX } from "../../src/products/phone/lookup.ts";
import { MAX_PREFIX_DIGITS, PHONE_DIR, SAMPLE_CALLING_CODES, TABLE_NAMES, build } from "./build.mjs";

const dirs = [];
const builds = [];

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const dir = await mkdtemp(join(tmpdir(), "phone-build-"));
    dirs.push(dir);
    builds.push(await build({ outDir: join(dir, "build"), phoneDir: dir, log: () => {} }));
  }
}, 120_000);

afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const read = (dir, file) => readFile(join(dir, file), "utf8");

describe("phone datasets", () => {
  it("builds byte-identical files twice", async () => {
    for (const file of ["manifest.json", "sample.tsv", ...TABLE_NAMES.map((n) => `build/${n}.tsv`)]) {
      expect(await read(dirs[0], file), file).toBe(await read(dirs[1], file));
    }
  });

  it("matches the committed manifest and sample: commit them after a package update", async () => {
    expect(await read(dirs[0], "manifest.json")).toBe(await read(PHONE_DIR, "manifest.json"));
    expect(await read(dirs[0], "sample.tsv")).toBe(await read(PHONE_DIR, "sample.tsv"));
  });

  it("versions every dataset and names each source with its version and license", () => {
    for (const d of builds[0]) {
      expect(d.version, d.name).toMatch(VERSION_PATTERN);
      expect(d.sources.length).toBeGreaterThan(0);
      for (const s of d.sources)
        expect(s.package ? [s.version, s.license, s.published] : [s.file, s.date]).not.toContain(undefined);
    }
    expect(builds[0].map((d) => d.name)).toEqual(["phone-numbering-plan", "phone-test-numbers", ...TABLE_NAMES]);
  });

  it("writes sorted, distinct rows with prefixes no longer than a lookup asks for", () => {
    const before = (a, b) => (a[0] === b[0] ? a[1] < b[1] : a[0] < b[0]);
    for (const d of builds[0].filter((x) => x.rows)) {
      const unordered = d.rows.findIndex((row, i) => i > 0 && !before(d.rows[i - 1], row));
      expect(unordered, d.name).toBe(-1);
      if (d.name !== "phone-disposable")
        expect(
          d.rows.every(([, prefix]) => prefix.length <= MAX_PREFIX_DIGITS),
          d.name,
        ).toBe(true);
    }
    expect(LOOKUP_MAX_PREFIX).toBe(MAX_PREFIX_DIGITS);
  });

  it("keeps the sources' answers: London for +44 20, the zone of +41, a disposable number with its date", () => {
    const table = (name) => new Map(builds[0].find((d) => d.name === name).rows.map(([c, p, v]) => [`${c}:${p}`, v]));
    expect(table("phone-geocodes").get("44:20")).toBe("London");
    expect(table("phone-timezones").get("41:")).toBe("Europe/Zurich");
    expect(table("phone-disposable").get("46:200231")).toBe("2023-12-20");
    expect(SAMPLE_CALLING_CODES).toEqual(["41", "44"]);
  });
});
