import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const DATASETS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT_DIR = resolve(DATASETS_DIR, "..");
export const SOURCES_DIR = join(DATASETS_DIR, "sources");

const require = createRequire(join(DATASETS_DIR, "build.mjs"));

export const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

export function packageDir(name) {
  for (let dir = DATASETS_DIR; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) throw new Error(`Package ${name} is not installed (run npm install)`);
  }
}

/**
 * `{package, version, license, published}` for an installed package. An installed package.json has no publish time,
 * so it comes from sources/package-releases.json, pinned per version: a version bump without a pin stops the build
 * rather than stamping new data with an old date.
 */
export function packageSource(name, releases) {
  const meta = readJson(join(packageDir(name), "package.json"));
  const pinned = releases.packages[name];
  if (!pinned || pinned.version !== meta.version) {
    throw new Error(
      `${name}@${meta.version} has no pinned publish time in datasets/sources/package-releases.json ` +
        `(pinned: ${pinned?.version ?? "none"}). Add it from \`npm view ${name} time --json\`.`,
    );
  }
  return { package: name, version: meta.version, license: meta.license, published: pinned.published.slice(0, 10) };
}

function curated(fileName) {
  const path = join(SOURCES_DIR, fileName);
  const content = readJson(path);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(content.date ?? "")) throw new Error(`${fileName} needs a "date" (YYYY-MM-DD)`);
  const file = relative(ROOT_DIR, path).split("\\").join("/");
  return { source: { file, date: content.date }, content };
}

/** Every input of every snapshot: the data packages (through their public exports) and the curated files. */
export async function loadInputs() {
  const releases = readJson(join(SOURCES_DIR, "package-releases.json"));
  const pkg = (name, list) => ({ source: packageSource(name, releases), list });

  // ESM only: the package's CommonJS build fails to load (its .js files sit under "type": "module").
  const misspelled = await import("email-misspelled");

  return {
    packages: {
      disposable: pkg("disposable-email-domains-js", require("disposable-email-domains-js").disposableEmailBlocklist()),
      mailchecker: pkg("mailchecker", [...require("mailchecker").blacklist()]),
      free: pkg("free-email-domains", require("free-email-domains")),
      role: pkg("role-based-email-addresses", [...require("role-based-email-addresses")]),
      misspelled: pkg("email-misspelled", misspelled.all),
    },
    curated: {
      allowlist: curated("disposable-allowlist.json"),
      roleExclusions: curated("role-exclusions.json"),
      typo: curated("typo-corrections.json"),
      rules: curated("provider-username-rules.json"),
      mx: curated("mx-provider-patterns.json"),
      providerRules: curated("provider-rules.json"),
      test: curated("test-addresses.json"),
    },
  };
}
