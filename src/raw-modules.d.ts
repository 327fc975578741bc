// `import text from "./file.json?raw"`: the file's text, not its parsed value. Vite (the tests) reads the suffix;
// wrangler's bundle makes the file a Text module (the `rules` in wrangler.toml), so both give the same string.
declare module "*.json?raw" {
  const text: string;
  export default text;
}
