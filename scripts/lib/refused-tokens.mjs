// The operator tokens a server refused lately, remembered by the CLI (`npm run admin`) so that it never sends the same
// wrong token twice. The operator API closes a source address after 10 wrong tokens in 15 minutes (docs/operations.md,
// "Operator API"), and off Cloudflare every local client shares one address (or, without a readable
// CF-Connecting-IP, one subject): a stale ADMIN_TOKEN re-run a few times would otherwise lock the CLI, and everything
// else on the machine, out of the operator API. Only a hash of the address and token is written, never the token.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** As long as the server's guessing window: a refusal older than that no longer counts there either. */
export const REFUSAL_MEMORY_MS = 15 * 60_000;

const stateFile = () =>
  join(process.env.ADMIN_CLI_STATE_DIR ?? join(tmpdir(), "verification-api-admin"), "refused.json");
const digest = (baseUrl, token) => createHash("sha256").update(`${baseUrl}\n${token}`).digest("hex");

function load(now) {
  try {
    const all = JSON.parse(readFileSync(stateFile(), "utf8"));
    return Object.fromEntries(
      Object.entries(all).filter(([, at]) => typeof at === "number" && now - at < REFUSAL_MEMORY_MS),
    );
  } catch {
    return {};
  }
}

/** When `baseUrl` refused `token` within the memory, or null. */
export function refusedAt(baseUrl, token, now = Date.now()) {
  return load(now)[digest(baseUrl, token)] ?? null;
}

/** Remembers that `baseUrl` answered 401 to `token`. */
export function rememberRefusal(baseUrl, token, now = Date.now()) {
  const all = { ...load(now), [digest(baseUrl, token)]: now };
  mkdirSync(join(stateFile(), ".."), { recursive: true });
  writeFileSync(stateFile(), JSON.stringify(all));
}

/** Where the remembered refusals are (named in the CLI's message, to clear them after the server's token changed). */
export const refusalFile = stateFile;
