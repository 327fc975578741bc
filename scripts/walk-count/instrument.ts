import { relative } from "node:path";
import { parseSync } from "oxc-parser";

/**
 * A vite plugin for `npm run walk:count`: every statement inside a function of src/ and durable-objects/ first reports
 * its file (`globalThis.__walkTrace?.("src/x.ts")`), and so does an arrow function's expression body. The trace is then
 * which project file is running, in run-time order: a stay is a run of statements in one file, and control coming back
 * to a caller that then does more work starts a new stay there (a tail `return f()` does not).
 */
export function instrumentProject(root: string) {
  return {
    name: "walk-count-instrument",
    enforce: "pre" as const,
    transform(code: string, id: string) {
      const file = relative(root, id.split("?")[0]!);
      if (!/^(src|durable-objects)\/.*\.ts$/.test(file) || file.endsWith(".d.ts")) return null;
      return { code: instrument(code, file), map: null };
    },
  };
}

interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as Node).type === "string";

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

function instrument(code: string, file: string): string {
  const { program } = parseSync(file, code, { lang: "ts" });
  const report = `globalThis.__walkTrace?.(${JSON.stringify(file)})`;
  const inserts: { at: number; text: string }[] = [];
  const visit = (node: Node, inFunction: boolean) => {
    const inside = inFunction || FUNCTIONS.has(node.type);
    if (inFunction && (node.type === "BlockStatement" || node.type === "SwitchCase")) {
      const body = (node.type === "BlockStatement" ? node.body : node.consequent) as Node[];
      for (const statement of body) inserts.push({ at: statement.start, text: `${report};` });
    }
    if (node.type === "ArrowFunctionExpression" && node.expression) {
      const body = node.body as Node;
      inserts.push({ at: body.start, text: `(${report}, ` }, { at: body.end, text: ")" });
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const child of value) if (isNode(child)) visit(child, inside);
      if (isNode(value)) visit(value, inside);
    }
  };
  visit(program as unknown as Node, false);
  // Positions are UTF-16 offsets (oxc's `start`/`end` for JS); applied last to first so earlier ones stay valid.
  inserts.sort((a, b) => b.at - a.at);
  let out = code;
  for (const { at, text } of inserts) out = out.slice(0, at) + text + out.slice(at);
  return out;
}
