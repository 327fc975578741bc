// Fails when a source line is longer than 120 characters. Biome's formatter keeps code within its lineWidth but never
// wraps comments, strings, template literals or SQL, so this check covers what the formatter leaves alone.
// It reads the files biome.json includes (the same globs and exclusions, through `git ls-files`), so the two checks
// always look at the same tree. No dependency: Node's path.matchesGlob does the glob matching.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { matchesGlob } from "node:path";

const MAX = 120;

// Lines that cannot be split without changing their meaning (a regex, a URL, a data literal). Keep this list short;
// each entry names the file, a piece of the line (so it survives edits above it) and why.
const ALLOWED = [
  { file: "src/http/time.ts", text: "const ISO", next: true, why: "one ISO 8601 regex literal" },
  { file: "src/products/address/names.ts", text: "const PO_BOX", next: true, why: "one regex literal of PO box words" },
  { file: "src/products/address/postcodes.ts", text: "GB: /^([A-PR-UWYZ]", why: "the UK postcode regex literal" },
  {
    file: "src/surfaces/mcp/routes.ts",
    text: "import { WebStandardStreamableHTTPServerTransport }",
    why: "a one-name import of a long module path: Biome keeps it on one line",
  },
  {
    file: "test/fixtures/validator-is-email-corpus.ts",
    text: "Deleted-user-id-19430",
    why: "a test vector (one address)",
  },
  { file: "test/http/openapi-reference.test.ts", text: "const LOOKUP", next: true, why: "one regex literal of routes" },
  { file: "test/products/consistency/bulk.test.ts", text: '/^1,".*",60,mixed', why: "a regex of one CSV row" },
];

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
const { files } = JSON.parse(readFileSync(`${root}/biome.json`, "utf8"));
const include = files.includes.filter((g) => !g.startsWith("!"));
const exclude = files.includes.filter((g) => g.startsWith("!")).map((g) => g.slice(1));
const tracked = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\0")
  .filter(Boolean);
const checked = tracked.filter(
  (f) => include.some((g) => matchesGlob(f, g)) && !exclude.some((g) => matchesGlob(f, g)),
);

// An entry matches the line holding `text`, or with `next` the line after it (a literal the formatter put below).
const allows = (file, lines, i) =>
  ALLOWED.some((a) => a.file === file && (a.next ? (lines[i - 1] ?? "").includes(a.text) : lines[i].includes(a.text)));
const over = [];
for (const file of checked) {
  let text;
  try {
    text = readFileSync(`${root}/${file}`, "utf8");
  } catch {
    continue; // listed by git but deleted in the working tree
  }
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    const length = [...line].length;
    if (length > MAX && !allows(file, lines, i)) over.push(`${file}:${i + 1} (${length})`);
  });
}

if (over.length > 0) {
  console.error(`${over.length} line(s) over ${MAX} characters:\n${over.join("\n")}`);
  process.exit(1);
}
console.log(`check-line-length: ${checked.length} files, no line over ${MAX} characters`);
