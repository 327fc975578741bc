// node:sqlite for the scripts that read or write the local D1 files directly. Node 22 prints a warning that it is
// experimental when it loads: one line of noise in every `npm run dev`, silenced here once for every caller.
const warn = process.emitWarning;
process.emitWarning = (warning, ...rest) =>
  /SQLite is an experimental/.test(String(warning)) ? undefined : warn.call(process, warning, ...rest);
const sqlite = await import("node:sqlite").finally(() => {
  process.emitWarning = warn;
});

export const { DatabaseSync } = sqlite;
