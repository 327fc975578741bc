// Lists the functions of the Worker's sources that take more than four parameters (the house rule: more than four
// become one named options object), with the largest function by lines. `--max N` fails when more than N are left,
// so the count can only go down.
import { readFileSync } from "node:fs";
import { parse, sourceFiles } from "./lib/source-files.mjs";

const LIMIT = 4;
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** Every function node of a program, with the name it is known by where it can be told. */
function* functionsOf(node, name = "(anonymous)") {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const child of node) yield* functionsOf(child, name);
    return;
  }
  if (FUNCTIONS.has(node.type)) yield { node, name: node.id?.name ?? name };
  for (const [key, child] of Object.entries(node)) {
    if (key === "type" || key === "start" || key === "end") continue;
    const named = node.type === "VariableDeclarator" || node.type === "MethodDefinition" || node.type === "Property";
    yield* functionsOf(child, named ? (node.id?.name ?? node.key?.name ?? name) : name);
  }
}

const lineOf = (source, offset) => source.slice(0, offset).split("\n").length;

const wide = [];
let largest = { lines: 0 };
for (const file of sourceFiles()) {
  const source = readFileSync(file, "utf8");
  for (const { node, name } of functionsOf(parse(file).program)) {
    const at = `${file}:${lineOf(source, node.start)}`;
    const params = node.params.filter((p) => !(p.type === "Identifier" && p.name === "this"));
    if (params.length > LIMIT) wide.push(`${at} ${name} (${params.length})`);
    const lines = lineOf(source, node.end) - lineOf(source, node.start) + 1;
    if (lines > largest.lines) largest = { lines, at, name };
  }
}
for (const line of wide) console.log(line);
console.log(`${wide.length} function(s) with more than ${LIMIT} parameters`);
console.log(`largest function: ${largest.name} at ${largest.at} (${largest.lines} lines)`);
const max = process.argv.indexOf("--max");
if (max > 0 && wide.length > Number(process.argv[max + 1])) process.exit(1);
