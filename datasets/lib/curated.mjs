import { sortedUnique } from "./canonical.mjs";

const RULE_FIELDS = [
  "provider",
  "domains",
  "canonical_domain",
  "plus_tags",
  "dots_ignored",
  "min_length",
  "max_length",
  "allowed_pattern",
  "must_start_with",
  "must_end_with",
  "hyphen_alias",
  "notes",
];

const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

function fail(problems, what) {
  if (problems.length) throw new Error(`${what}:\n  ${problems.join("\n  ")}`);
}

function compiles(source, where, problems) {
  if (source === null) return;
  try {
    new RegExp(source);
  } catch (error) {
    problems.push(`${where}: ${error.message}`);
  }
}

/**
 * `provider-username-rules`: checked (RegExps compile, lengths sane, no domain under two providers), sorted by
 * provider.
 */
export function providerUsernameRules({ curated }) {
  const problems = [];
  const owner = new Map();
  const rules = curated.rules.content.providers.map((raw) => {
    const rule = { ...raw, domains: sortedUnique(raw.domains.map((d) => d.toLowerCase())) };
    const where = rule.provider;
    const extra = Object.keys(rule).filter((key) => !RULE_FIELDS.includes(key));
    const absent = RULE_FIELDS.filter((key) => !(key in rule));
    if (extra.length || absent.length)
      problems.push(`${where}: unknown ${extra.join(",") || "-"}, missing ${absent.join(",") || "-"}`);
    for (const key of ["allowed_pattern", "must_start_with", "must_end_with"])
      compiles(rule[key], `${where}.${key}`, problems);
    if (
      !Number.isInteger(rule.min_length) ||
      !Number.isInteger(rule.max_length) ||
      rule.min_length < 1 ||
      rule.min_length > rule.max_length ||
      rule.max_length > 64
    ) {
      problems.push(`${where}: lengths must satisfy 1 <= min_length <= max_length <= 64`);
    }
    for (const key of ["plus_tags", "dots_ignored", "hyphen_alias"])
      if (typeof rule[key] !== "boolean") problems.push(`${where}.${key} must be boolean`);
    if (rule.canonical_domain !== null && !rule.domains.includes(rule.canonical_domain))
      problems.push(`${where}: canonical_domain is not one of its domains`);
    for (const domain of rule.domains) {
      if (owner.has(domain)) problems.push(`${domain} is under both ${owner.get(domain)} and ${where}`);
      owner.set(domain, where);
    }
    return Object.fromEntries(RULE_FIELDS.map((key) => [key, rule[key]]));
  });
  if (new Set(rules.map((r) => r.provider)).size !== rules.length) problems.push("provider names repeat");
  fail(problems, "provider-username-rules.json");
  return rules.sort((a, b) => (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0));
}

/**
 * `mx-provider-patterns`: file order kept (first match wins). Each suffix belongs to one provider, and a suffix that
 * sits under another provider's suffix must be tried first, or it could never match.
 */
export function mxProviderPatterns({ curated }) {
  const problems = [];
  const entries = curated.mx.content.providers.map(({ provider, suffixes }) => ({
    provider,
    suffixes: sortedUnique(suffixes.map((s) => s.toLowerCase().replace(/\.$/, ""))),
  }));
  const seen = new Map();
  entries.forEach(({ provider, suffixes }, index) => {
    for (const suffix of suffixes) {
      if (seen.has(suffix)) problems.push(`${suffix} is under both ${seen.get(suffix).provider} and ${provider}`);
      seen.set(suffix, { provider, index });
    }
  });
  for (const [suffix, { provider, index }] of seen) {
    for (const [other, earlier] of seen) {
      if (earlier.provider !== provider && suffix.endsWith(`.${other}`) && earlier.index < index) {
        problems.push(`${suffix} (${provider}) comes after ${other} (${earlier.provider}), which already matches it`);
      }
    }
  }
  if (new Set(entries.map((e) => e.provider)).size !== entries.length) problems.push("provider names repeat");
  fail(problems, "mx-provider-patterns.json");
  return entries;
}

/** `test-addresses`: the sandbox domain, its local parts and the resulting sample addresses. */
export function testAddresses({ curated }) {
  const { domain, local_parts: raw } = curated.test.content;
  const localParts = sortedUnique(raw.map((part) => part.toLowerCase()));
  fail(
    localParts
      .filter((part) => !LOCAL_PART.test(part) || part.includes("+"))
      .map((part) => `${part} is not a plain local part`),
    "test-addresses.json",
  );
  return { domain, local_parts: localParts, addresses: localParts.map((part) => `${part}@${domain}`) };
}
