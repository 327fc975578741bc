// Lists exports of src/, durable-objects/ and workers/ that nothing uses (dead code), that only their own file uses
// (an `export` with no importer) and that only tests use. Grep cannot tell a name from the same word elsewhere, so
// this asks the TypeScript checker (TypeScript 7's API: a tsgo process answering over a pipe) which declaration each
// identifier resolves to, across the code, the tests, the scripts and the benches.
// Prints the three lists; exits 1 when the first one is not empty, so `npm run check:exports` guards against dead code.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { SyntaxKind } from "typescript/unstable/ast";
import { API, SymbolFlags } from "typescript/unstable/sync";

const CHECKED = ["src", "durable-objects", "workers"];
const READERS = [...CHECKED, "test", "scripts", "bench"];
// What the runtime itself loads: its exports are used by Workers and Node, not by an import.
// drizzle-kit reads the schema's tables to write migrations.
const ENTRY_FILES = new Set(["src/index.ts", "workers/smtp-sidecar/server.mjs", "src/db/schema.ts"]);
// Syntax where an identifier names the thing (declares, imports or re-exports it) rather than uses it.
const NAMING = new Set([SyntaxKind.ImportSpecifier, SyntaxKind.ExportSpecifier, SyntaxKind.ImportClause]);

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
const rel = (fileName) => relative(root, fileName);
const isTest = (file) => file.startsWith("test/") || file.includes("/test/") || /\.test\.(ts|mjs)$/.test(file);

/**
 * A throw-away tsconfig: the project's options, JavaScript files too, every file that may import the code. It lists
 * files rather than folders because a folder's `x.d.mts` would hide its `x.mjs`, whose own imports count too.
 */
function openProject(api) {
  const config = `${root}/.unused-exports.tsconfig.json`;
  const compilerOptions = { allowJs: true, checkJs: false };
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", ...READERS], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((f) => /\.(ts|tsx|mts|mjs)$/.test(f));
  writeFileSync(config, JSON.stringify({ extends: "./tsconfig.json", compilerOptions, files }));
  try {
    return api.updateSnapshot({ openProjects: [config] }).getProjects()[0];
  } finally {
    rmSync(config);
  }
}

function isNaming(id, file) {
  const parent = id.parent;
  // The runtime reads the entry file's re-exports (the Durable Object classes), so there they are uses.
  if (parent.kind === SyntaxKind.ExportSpecifier && ENTRY_FILES.has(file)) return false;
  if (NAMING.has(parent.kind)) return true;
  const named = parent.name === id && parent.kind !== SyntaxKind.PropertyAccessExpression;
  return named && parent.kind !== SyntaxKind.ShorthandPropertyAssignment;
}

function identifiersOf(sourceFile, file) {
  const found = [];
  const visit = (node) => {
    if (node.kind === SyntaxKind.Identifier && !isNaming(node, file)) found.push(node);
    node.forEachChild(visit);
  };
  sourceFile.forEachChild(visit);
  return found;
}

/** The files that use each declaration (by the checker's symbol id), following imports to what they import. */
function collectUses(project, fileNames) {
  const { checker } = project;
  const aliases = new Map();
  const targetId = (symbol) => {
    if (!(symbol.flags & SymbolFlags.Alias)) return symbol.id;
    if (!aliases.has(symbol.id)) aliases.set(symbol.id, checker.getAliasedSymbol(symbol).id);
    return aliases.get(symbol.id);
  };
  const uses = new Map();
  const namespaces = new Map();
  const exportsOfNamespace = (symbol) => {
    if (!namespaces.has(symbol.id)) {
      const module = checker.getAliasedSymbol(symbol);
      namespaces.set(symbol.id, module.flags & SymbolFlags.ValueModule ? checker.getExportsOfModule(module) : []);
    }
    return namespaces.get(symbol.id);
  };
  const use = (symbol, file) => {
    const id = targetId(symbol);
    uses.set(id, (uses.get(id) ?? new Set()).add(file));
    // A module namespace used as a value (`{ schema }`, `Object.values(ns)`) uses every export it holds.
    if (symbol.flags & SymbolFlags.Alias) for (const exported of exportsOfNamespace(symbol)) use(exported, file);
  };
  for (const fileName of fileNames) {
    const file = rel(fileName);
    const ids = identifiersOf(project.program.getSourceFile(fileName), file);
    const symbols = ids.length > 0 ? checker.getSymbolAtLocation(ids) : [];
    ids.forEach((id, i) => {
      // `{ observe }` names a property; the value it holds is what the checker's shorthand lookup finds.
      const shorthand = id.parent.kind === SyntaxKind.ShorthandPropertyAssignment;
      const symbol = shorthand ? checker.getShorthandAssignmentValueSymbol(id.parent) : symbols[i];
      if (symbol) use(symbol, file);
    });
  }
  return { uses, targetId };
}

/** Each export a checked file declares itself; a re-export is judged where it is declared. */
function* ownExports(project, fileNames, targetId) {
  for (const fileName of fileNames) {
    // A JavaScript file's `.d.mts` is what TypeScript importers resolve to, so its exports stand for the file's.
    if (fileName.endsWith(".mjs") && fileNames.includes(fileName.replace(/\.mjs$/, ".d.mts"))) continue;
    const file = rel(fileName).replace(/\.d\.mts$/, ".mjs");
    if (!CHECKED.some((d) => file.startsWith(`${d}/`)) || ENTRY_FILES.has(file) || isTest(file)) continue;
    for (const exported of exportsOf(project, fileName)) {
      if (exported.flags & SymbolFlags.Alias || exported.name === "default") continue;
      yield { file, name: exported.name, id: targetId(exported) };
    }
  }
}

function exportsOf(project, fileName) {
  const moduleSymbol = project.checker.getSymbolAtLocation(project.program.getSourceFile(fileName));
  return moduleSymbol ? project.checker.getExportsOfModule(moduleSymbol) : [];
}

/** What the entry files export (`export *` included) is used by whatever loads them. */
function useEntryExports(project, fileNames, uses, targetId) {
  for (const fileName of fileNames.filter((f) => ENTRY_FILES.has(rel(f)))) {
    for (const exported of exportsOf(project, fileName)) {
      const id = targetId(exported);
      uses.set(id, (uses.get(id) ?? new Set()).add(rel(fileName)));
    }
  }
}

function classify(project) {
  const fileNames = project.program
    .getSourceFileNames()
    .filter((f) => !f.includes("/node_modules/") && !f.endsWith(".d.ts") && f.startsWith(`${root}/`));
  const { uses, targetId } = collectUses(project, fileNames);
  useEntryExports(project, fileNames, uses, targetId);
  const found = { unused: [], local: [], tests: [] };
  for (const { file, name, id } of ownExports(project, fileNames, targetId)) {
    const users = uses.get(id) ?? new Set();
    const others = [...users].filter((f) => f !== file);
    if (others.some((f) => !isTest(f))) continue;
    if (others.length > 0) found.tests.push(`${file}: ${name} (${others.join(", ")})`);
    else if (users.has(file)) found.local.push(`${file}: ${name}`);
    else found.unused.push(`${file}: ${name}`);
  }
  return found;
}

const api = new API({ cwd: root });
try {
  const found = classify(openProject(api));
  const sections = [
    ["used nowhere", found.unused],
    ["used only by tests", found.tests],
    ["exported, used only in their own file", found.local],
  ];
  for (const [title, list] of sections) {
    console.log(`${title}: ${list.length}`);
    for (const line of list) console.log(`  ${line}`);
  }
  process.exitCode = found.unused.length > 0 ? 1 : 0;
} finally {
  api.close();
}
