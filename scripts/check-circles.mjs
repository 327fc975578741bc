// Fails when the Worker's modules import each other in a circle (static imports and re-exports, type-only ones
// included: a circle of types still ties two modules' designs together). Lazy `import()` calls are left out, as they
// run after both modules loaded. Prints each circle once, as the chain of files that closes it.
import { parse, resolveImport, sourceFiles } from "./lib/source-files.mjs";

function importGraph(files) {
  const graph = new Map();
  for (const file of files) {
    const { module } = parse(file);
    const specifiers = [
      ...module.staticImports.map((i) => i.moduleRequest.value),
      ...module.staticExports.flatMap((e) => e.entries.map((x) => x.moduleRequest?.value).filter(Boolean)),
    ];
    graph.set(file, [...new Set(specifiers.map((s) => resolveImport(file, s)).filter(Boolean))]);
  }
  return graph;
}

/** Each back edge of a depth-first walk closes one circle (the way madge counts them). */
function circles(graph) {
  const found = [];
  const state = new Map();
  const stack = [];
  const visit = (file) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

const found = circles(importGraph(sourceFiles()));
for (const circle of found) console.error(`circle: ${circle.join(" -> ")}`);
if (found.length) {
  console.error(`${found.length} import circle(s)`);
  process.exit(1);
}
console.log("no import circles");
