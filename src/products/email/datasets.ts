// The two long lists come as text (a Text module in the deployed Worker, `rules` in wrangler.toml), parsed on first
// use: as JavaScript they would be compiled and built at every isolate's startup (docs/architecture.md, "Cold start").
import disposableText from "../../../datasets/snapshots/disposable-domains.json?raw";
import freeText from "../../../datasets/snapshots/free-provider-domains.json?raw";
import manifest from "../../../datasets/snapshots/manifest.json";
import mxSnapshot from "../../../datasets/snapshots/mx-provider-patterns.json";
import providerRulesSnapshot from "../../../datasets/snapshots/provider-rules.json";
import rulesSnapshot from "../../../datasets/snapshots/provider-username-rules.json";
import roleSnapshot from "../../../datasets/snapshots/role-addresses.json";
import testSnapshot from "../../../datasets/snapshots/test-addresses.json";
import typoSnapshot from "../../../datasets/snapshots/typo-domains.json";
import { whole, type Source } from "../../engines/sources";

/**
 * The email product's bundled dataset snapshots (built by `npm run datasets:build`, see datasets/README.md). Lookup
 * structures are built once per isolate, on first use.
 */
export type { Source } from "../../engines/sources";

export interface UsernameRule {
  provider: string;
  domains: string[];
  /** The domain every address of this provider folds to, or null when its domains are separate mailboxes. */
  canonical_domain: string | null;
  plus_tags: boolean;
  dots_ignored: boolean;
  min_length: number;
  max_length: number;
  allowed_pattern: string;
  must_start_with: string | null;
  must_end_with: string | null;
  hyphen_alias: boolean;
}

/** A snapshot's name, version and size without its data: the manifest `npm run datasets:build` writes beside it. */
const described = (name: string) => {
  const entry = manifest.snapshots.find((s) => s.name === name);
  if (!entry) throw new Error(`datasets/snapshots/manifest.json lists no ${name}`);
  return entry;
};
const disposableSnapshot = described("disposable-domains");
const freeSnapshot = described("free-provider-domains");

// Each snapshot is the whole of what it is built from (BUNDLED_SNAPSHOTS below).
const source = (snapshot: { name: string; version: string }): Source => whole(snapshot.name, snapshot.version);

export const SOURCES = {
  disposable: source(disposableSnapshot),
  free: source(freeSnapshot),
  role: source(roleSnapshot),
  typo: source(typoSnapshot),
  rules: source(rulesSnapshot),
  mx: source(mxSnapshot),
  test: source(testSnapshot),
};

/**
 * Every bundled snapshot, for `GET /status/data`. Each is the whole of the lists and curated files it is built from
 * (datasets/README.md), hence `full`: a domain it does not list is one no source lists.
 */
export const BUNDLED_SNAPSHOTS = [
  disposableSnapshot,
  freeSnapshot,
  roleSnapshot,
  typoSnapshot,
  rulesSnapshot,
  mxSnapshot,
  providerRulesSnapshot,
  testSnapshot,
].map((s) => ({
  name: s.name,
  version: s.version,
  records: s.records,
  coverage: { kind: "full" as const, note: "Every entry of the published lists and curated files it is built from." },
}));

const lazy = <T>(build: () => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

const listOf = (text: string) => (JSON.parse(text) as { data: string[] }).data;
export const disposableDomains = lazy(() => new Set<string>(listOf(disposableText)));
export const freeProviderDomains = lazy(() => new Set<string>(listOf(freeText)));
export const roleLocalParts = lazy(() => new Set<string>(roleSnapshot.data as string[]));

export const typoData = lazy(() => {
  const data = typoSnapshot.data as { targets: string[]; corrections: Record<string, string> };
  return {
    targets: data.targets,
    targetSet: new Set(data.targets),
    corrections: new Map(Object.entries(data.corrections)),
  };
});

export const usernameRules = lazy(() => {
  const byDomain = new Map<string, UsernameRule & { allowed: RegExp; start: RegExp | null; end: RegExp | null }>();
  for (const rule of rulesSnapshot.data as UsernameRule[]) {
    const compiled = {
      ...rule,
      allowed: new RegExp(rule.allowed_pattern),
      start: rule.must_start_with ? new RegExp(rule.must_start_with) : null,
      end: rule.must_end_with ? new RegExp(rule.must_end_with) : null,
    };
    for (const domain of rule.domains) byDomain.set(domain, compiled);
  }
  return byDomain;
});

export const mxProviderPatterns = lazy(() => mxSnapshot.data as { provider: string; suffixes: string[] }[]);

export const testAddresses = lazy(() => {
  const data = testSnapshot.data as { domain: string; local_parts: string[] };
  return { domain: data.domain, localParts: new Set(data.local_parts) };
});
