// What `npm run dev` shows and what it only logs (scripts/lib/dev-output.mjs): failures always, wrangler's chatter
// only after the banner and never its bindings table or the dataset loads' row posts; every line in the log file.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { devOutput } from "./lib/dev-output.mjs";
import { OUTSIDE_FAILURE_NOTICE } from "./lib/quiet-failures.mjs";

const dir = mkdtempSync(join(tmpdir(), "dev-output-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Feeds `lines` through a followed stream; resolves what reached the terminal. */
async function shown(out, lines, options) {
  const input = new PassThrough();
  const written = [];
  out.follow(input, { write: (text) => written.push(text.replace(/\n$/, "")) }, options);
  input.end(`${lines.join("\n")}\n`);
  await sleep(20); // readline emits its lines on later ticks
  return written;
}

const BUILD_ERROR = [
  "\x1b[31m✘ \x1b[41;31m[\x1b[41;97mERROR\x1b[41;31m]\x1b[0m \x1b[1mBuild failed with 1 error:\x1b[0m",
  "",
  "  src/app.ts:88:15: Unexpected ';'",
  "⎔ Starting local server...",
];

describe("npm run dev's output", () => {
  it("shows only failures before the banner, and every line in the log", async () => {
    const out = devOutput(join(dir, "before.log"));
    const lines = ["[custom build] Running: node scripts/build-widget.mjs", ...BUILD_ERROR, "Using secrets"];
    expect(await shown(out, lines)).toEqual([BUILD_ERROR[0], "", BUILD_ERROR[2]]);
    const log = readFileSync(join(dir, "before.log"), "utf8").trimEnd().split("\n");
    expect(log.map((line) => line.slice(7))).toEqual(lines.map((line) => line.replace(/\x1b\[[0-9;]*m/g, "")));
    expect(log[0]).toMatch(/^ +\d+\.\d /);
    expect(out.tail(2)).toEqual(["⎔ Starting local server...", "Using secrets"]);
  });

  it("shows a sidecar's stderr whole, and an outside-fetch failure once as a notice", async () => {
    const out = devOutput(join(dir, "stderr.log"));
    expect(await shown(out, ["smtp-sidecar: SIDECAR_SECRET is required"], { stderr: true })).toEqual([
      "smtp-sidecar: SIDECAR_SECRET is required",
    ]);
    const failure = "✘ [ERROR] fetch failed: failed to lookup address information";
    expect(await shown(out, [failure, "  stack: x", "", failure, "  stack: y"])).toEqual([OUTSIDE_FAILURE_NOTICE]);
  });

  it("after the banner shows requests, but not the bindings table or the dataset loads", async () => {
    const out = devOutput(join(dir, "after.log"));
    out.running();
    const lines = [
      "⎔ Connection status updated",
      "Your Worker has access to the following bindings:",
      "Binding     Resource     Mode",
      "env.DB (verification)     D1 Database     local",
      "",
      "[wrangler:info] POST /admin/v1/ip-datasets/ip-city/imports/2/rows 200 OK (420ms)",
      "[wrangler:info] POST /api/v1/email 200 OK (12ms)",
    ];
    expect(await shown(out, lines)).toEqual(["[wrangler:info] POST /api/v1/email 200 OK (12ms)"]);
  });

  it("logs wrangler's output chunks line by line", () => {
    const out = devOutput(join(dir, "chunks.log"));
    out.chunk("Resource location: lo");
    out.chunk("cal\nApplying 1 migration(s)\n");
    expect(out.tail()).toEqual(["Resource location: local", "Applying 1 migration(s)"]);
  });
});
