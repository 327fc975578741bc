// workerd logs every failed outgoing fetch (a DNS-over-HTTPS or RDAP query on a machine without internet) as a red
// ERROR with a native stack, several per lookup, although the Worker handles the failure. `npm run dev` passes
// wrangler's output through this filter: those blocks are dropped and one quiet line says what is going on.
import { createInterface } from "node:readline";

const ANSI = /\x1b\[[0-9;]*m/g;
const OUTSIDE_FAILURE =
  /\[ERROR\].*(failed to lookup address information|Connection refused|Network connection lost|disconnected)/;

/** Copies `input` to `output` line by line, without workerd's outside-fetch failure blocks. */
export function quietOutsideFailures(input, output) {
  let skipping = false;
  let told = false;
  createInterface({ input }).on("line", (line) => {
    const plain = line.replace(ANSI, "");
    if (OUTSIDE_FAILURE.test(plain)) {
      skipping = true;
      if (!told) {
        told = true;
        output.write(
          "[dev] an outside lookup (DNS over HTTPS, RDAP) failed: no internet here? Answers stay unverified and " +
            "free; `npm run dev -- --offline` serves sample domains. Further failures are not shown.\n",
        );
      }
      return;
    }
    if (skipping && (plain.trim() === "" || plain.trimStart().startsWith("stack:"))) return;
    skipping = false;
    output.write(`${line}\n`);
  });
}
