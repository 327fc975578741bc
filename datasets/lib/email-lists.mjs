import { sortedUnique } from "./canonical.mjs";

const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** Lower-cased, trimmed, trailing dot dropped; entries that are not host names are counted and left out. */
export function cleanDomains(values, label, log) {
  const clean = [];
  let dropped = 0;
  for (const value of values) {
    const domain = String(value).trim().toLowerCase().replace(/\.$/, "");
    if (DOMAIN.test(domain)) clean.push(domain);
    else dropped += 1;
  }
  if (dropped) log(`  ${label}: ${dropped} entries are not host names and were left out`);
  return sortedUnique(clean);
}

const coveredBy = (domain, parents) => {
  for (let at = domain; ; at = at.slice(at.indexOf(".") + 1)) {
    if (parents.has(at)) return true;
    if (!at.includes(".")) return false;
  }
};

function fail(problems, what) {
  if (problems.length) throw new Error(`${what}:\n  ${problems.join("\n  ")}`);
}

/** `typo-domains`: popular targets (email-misspelled's lists + curated extras) and the curated explicit corrections. */
export function typoDomains({ packages, curated }, log) {
  const { extra_targets: extraTargets, corrections: raw } = curated.typo.content;
  const targets = cleanDomains([...packages.misspelled.list, ...extraTargets], "typo targets", log);
  const targetSet = new Set(targets);
  const corrections = {};
  const problems = [];
  for (const [typo, meant] of Object.entries(raw)) {
    const key = typo.trim().toLowerCase();
    const value = meant.trim().toLowerCase();
    if (targetSet.has(key)) problems.push(`${key} is itself a popular domain (a target)`);
    if (!targetSet.has(value)) problems.push(`${key} -> ${value}: ${value} is not a target`);
    if (key in corrections) problems.push(`${key} is listed twice`);
    corrections[key] = value;
  }
  fail(problems, "typo-corrections.json");
  return { targets, corrections };
}

/** The relay/forwarding allowlist as a set of domains (a listed domain also covers its subdomains). */
export function relayAllowlist({ curated }, log) {
  const domains = curated.allowlist.content.services.flatMap((service) => service.domains);
  return new Set(cleanDomains(domains, "relay allowlist", log));
}

/**
 * `free-provider-domains` and `disposable-domains`, decided together so that no domain is both. Precedence, strongest
 * first: the relay allowlist (never disposable); curated typo keys (never free); disposable-email-domains-js over
 * free-email-domains (which copies that blocklist wholesale into its own list); free-email-domains over mailchecker.
 * Well-known mailbox domains (typo targets, provider-rule domains, the allowlist) are never disposable.
 */
export function providerLists(inputs, { typo, ruleDomains, allowlist }, log) {
  const { packages } = inputs;
  const blocklist = new Set(cleanDomains(packages.disposable.list, "disposable-email-domains-js", log));
  const mailchecker = cleanDomains(packages.mailchecker.list, "mailchecker", log);
  const freeRaw = cleanDomains(packages.free.list, "free-email-domains", log);
  const typoKeys = new Set(Object.keys(typo.corrections));
  const knownMailbox = new Set([...typo.targets, ...ruleDomains, ...allowlist]);

  fail(
    [...typoKeys]
      .filter((key) => knownMailbox.has(key))
      .map((key) => `${key} is a typo key and a known mailbox domain`),
    "Curated files disagree",
  );

  const free = [];
  const freeDropped = { listedDisposable: 0, typo: 0 };
  for (const domain of freeRaw) {
    if (knownMailbox.has(domain)) free.push(domain);
    else if (typoKeys.has(domain)) freeDropped.typo += 1;
    else if (blocklist.has(domain)) freeDropped.listedDisposable += 1;
    else free.push(domain);
  }
  const freeSet = new Set(free);

  const union = sortedUnique([...blocklist, ...mailchecker]);
  const disposable = [];
  const removed = { allowlisted: [], freeProvider: [], knownMailbox: [] };
  for (const domain of union) {
    if (coveredBy(domain, allowlist)) removed.allowlisted.push(domain);
    else if (freeSet.has(domain)) removed.freeProvider.push(domain);
    else if (knownMailbox.has(domain)) removed.knownMailbox.push(domain);
    else disposable.push(domain);
  }

  log(
    `  free-email-domains: ${freeRaw.length} listed; ${freeDropped.listedDisposable} dropped as listed by ` +
      `disposable-email-domains-js, ${freeDropped.typo} dropped as curated typo domains`,
  );
  log(
    `  disposable union: ${union.length} (disposable-email-domains-js ${blocklist.size}, mailchecker ` +
      `${mailchecker.length})`,
  );
  log(
    `  disposable: ${removed.allowlisted.length} removed by the relay allowlist ` +
      `(${removed.allowlisted.slice(0, 12).join(", ")}${removed.allowlisted.length > 12 ? ", ..." : ""})`,
  );
  log(
    `  disposable: ${removed.freeProvider.length} removed as free providers (mailchecker-only entries that ` +
      `free-email-domains lists)`,
  );
  log(`  disposable: ${removed.knownMailbox.length} removed as well-known mailbox domains`);

  fail(
    disposable.filter((domain) => freeSet.has(domain)),
    "Domains both free and disposable",
  );
  return { free, disposable, stats: { freeDropped, removed } };
}

/** `role-addresses`: role-based-email-addresses, lower-cased, minus the curated personal-name exclusions. */
export function roleAddresses({ packages, curated }, log) {
  const excluded = new Set(curated.roleExclusions.content.exclusions.map((entry) => entry.local_part.toLowerCase()));
  const all = sortedUnique(packages.role.list.map((part) => String(part).trim().toLowerCase()).filter(Boolean));
  const missing = [...excluded].filter((part) => !all.includes(part));
  if (missing.length) log(`  role exclusions no longer upstream: ${missing.join(", ")}`);
  return all.filter((part) => !excluded.has(part));
}
