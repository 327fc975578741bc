// `npm run walk:count`: runs scripts/walk-count/walk.trace.ts in workerd with src/ and durable-objects/
// instrumented (instrument.ts) and prints one line per traced path, e.g.
// `POST /api/v1/email (REST): 44 stays, 14 files, 22 returns`. WALK_COUNT_PATHS=1 also prints each path's stays.
import { spawnSync } from "node:child_process";

const run = spawnSync(
  "npx",
  ["vitest", "run", "--config", "scripts/walk-count/vitest.config.ts", "--reporter=dot", "--silent=false"],
  { encoding: "utf8", env: process.env, maxBuffer: 64 * 1024 * 1024 },
);
const lines = `${run.stdout}\n${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "").split("\n");
const figures = lines.filter((line) => line.startsWith("walk-count ")).map((line) => line.slice("walk-count ".length));
const paths = lines.filter((line) => line.startsWith("walk-path ")).map((line) => line.slice("walk-path ".length));
if (run.status !== 0 || figures.length === 0) {
  console.error(lines.slice(-60).join("\n"));
  process.exit(1);
}
for (const line of figures) console.log(line);
if (process.env.WALK_COUNT_PATHS) for (const line of paths) console.log(`\n${line}`);
