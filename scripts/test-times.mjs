// `npm run test:times`: the slowest test files of the last vitest run (its JSON report, .vitest/last-run.json, which
// vitest.config.ts writes on every run), with their durations, so a slow file is seen the day it lands. Reads only;
// no timing is asserted anywhere.
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const REPORT = join(ROOT, ".vitest/last-run.json");
const COUNT = Number(process.argv[2] ?? 15);

if (!existsSync(REPORT)) {
  console.error("test:times: no .vitest/last-run.json yet; run `npm test` (or any vitest run) first");
  process.exit(1);
}
const report = JSON.parse(readFileSync(REPORT, "utf8"));
const files = report.testResults.map((file) => ({
  name: relative(ROOT, file.name),
  seconds: (file.endTime - file.startTime) / 1000,
  tests: file.assertionResults.length,
  status: file.status,
}));
const total = files.reduce((sum, file) => sum + file.seconds, 0);
const wall = (Math.max(...report.testResults.map((f) => f.endTime)) - report.startTime) / 1000;

console.log(
  `Slowest ${Math.min(COUNT, files.length)} of ${files.length} test files in the last run ` +
    `(${new Date(report.startTime).toISOString()}: ${wall.toFixed(0)} s from start to the last file's end, ` +
    `${total.toFixed(0)} s of file time over all workers):`,
);
for (const file of files.sort((a, b) => b.seconds - a.seconds).slice(0, COUNT)) {
  const flag = file.status === "passed" ? "" : `  (${file.status})`;
  console.log(`${file.seconds.toFixed(1).padStart(7)} s  ${String(file.tests).padStart(4)} tests  ${file.name}${flag}`);
}
