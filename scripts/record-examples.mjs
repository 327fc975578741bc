// `npm run openapi:examples [-- test files...]`: runs the workerd tests with OPENAPI_RECORD set, so every successful
// answer a test receives through fetchChecked/call is sent to the Node-side desk (test/openapi-record.ts,
// test/fixtures/openapi-desk.ts), then keeps one real answer per operation in
// src/surfaces/api/recorded-examples.json: the request and response examples the served OpenAPI document shows.
// Operations the run did not reach keep their recorded example; test/http/openapi-examples.test.ts fails while an
// operation has none. Commit the file.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./lib/local.mjs";

const EXAMPLES_FILE = join(ROOT, "src", "surfaces", "api", "recorded-examples.json");

/** Arrays in an example keep this many items: enough to show the shape, light enough for the reference page. */
const MAX_ITEMS = 3;
/** A CSV answer keeps its header and this many rows. */
const MAX_CSV_ROWS = 3;
/** The largest answer preferred as an example (bytes of JSON, after trimming): the richest under it wins. */
const PREFERRED_BYTES = 4096;

/** The example, with long arrays cut to their first items and a CSV body to its first rows. */
function trimmed(value) {
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map(trimmed);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, trimmed(item)]));
  if (typeof value === "string" && value.includes("\n") && value.length > 400)
    return `${value
      .split("\n")
      .slice(0, MAX_CSV_ROWS + 1)
      .join("\n")}\n`;
  return value;
}

/** One example among an operation's recorded answers: one with a request body if any, then the richest light one. */
function choose(candidates) {
  const withBody = candidates.filter((candidate) => candidate.body !== undefined);
  const pool = (withBody.length ? withBody : candidates).map((candidate) => ({
    ...candidate,
    response: trimmed(candidate.response),
    ...(candidate.body === undefined ? {} : { body: trimmed(candidate.body) }),
  }));
  const size = (candidate) => JSON.stringify(candidate).length;
  const light = pool.filter((candidate) => size(candidate) <= PREFERRED_BYTES);
  const ranked = light.length ? light.sort((a, b) => size(b) - size(a)) : pool.sort((a, b) => size(a) - size(b));
  const { summary, ...example } = ranked[0];
  return { summary: `A real answer (recorded from the test "${summary.split(" > ").at(-1)}")`, ...example };
}

function main() {
  const dir = mkdtempSync(join(tmpdir(), "openapi-examples-"));
  try {
    const files = process.argv.slice(2);
    const run = spawnSync(
      process.execPath,
      [
        join(ROOT, "node_modules", "vitest", "vitest.mjs"),
        "run",
        "--project",
        "worker",
        "--project",
        "worker-pristine",
        ...files,
      ],
      { cwd: ROOT, stdio: "inherit", env: { ...process.env, OPENAPI_RECORD: dir } },
    );
    if (run.status !== 0) console.warn("[examples] some tests failed; keeping what the others recorded");
    const candidates = new Map();
    for (const file of readdirSync(dir))
      for (const line of readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean))
        for (const [operation, list] of Object.entries(JSON.parse(line)))
          candidates.set(operation, [...(candidates.get(operation) ?? []), ...list]);
    const kept = existsSync(EXAMPLES_FILE) ? JSON.parse(readFileSync(EXAMPLES_FILE, "utf8")) : {};
    for (const [operation, list] of candidates) kept[operation] = [choose(list)];
    const sorted = Object.fromEntries(Object.entries(kept).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(EXAMPLES_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
    console.log(
      `[examples] ${candidates.size} operations recorded this run; ${Object.keys(sorted).length} in the file`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
