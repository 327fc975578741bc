// Lets Node scripts import src/ TypeScript files, whose imports name siblings without an extension (bundler style):
// a relative import from a .ts file that Node cannot find is retried as `<specifier>.ts`. Node strips the types.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (err) {
      const relative = specifier.startsWith("./") || specifier.startsWith("../");
      if (err?.code !== "ERR_MODULE_NOT_FOUND" || !relative || !context.parentURL?.endsWith(".ts")) throw err;
      return nextResolve(`${specifier}.ts`, context);
    }
  },
});
