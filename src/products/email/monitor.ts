import type { MonitorShape } from "../../engines/product";
import { normalizeDomain } from "./domain";
import type { DomainResult } from "./result";
import type { EmailResult, Verdict } from "./result";

/**
 * What email monitors and domain monitors watch (docs/email-monitors.md). An address run reports decay only: a verdict
 * that got worse (deliverable -> risky or undeliverable, risky -> undeliverable) and a newly raised disposable or role
 * flag; an address that got better just becomes the new baseline. A domain run reports every change of its mail
 * set-up, leaving out fields unknown on either side (a resolver that did not answer is not a change).
 */
const RANK: Record<Verdict, number> = { deliverable: 0, risky: 1, undeliverable: 2 };
const FLAGS = ["disposable", "role"] as const;

type Change = { field: string; from: unknown; to: unknown };

export const observeAddress = (r: EmailResult) => ({
  deliverable: r.deliverable,
  reason: r.reason,
  disposable: r.disposable,
  role: r.role,
});

export function compareAddress(baseline: Record<string, unknown>, now: Record<string, unknown>): Change[] {
  const changes: Change[] = [];
  const before = baseline.deliverable as Verdict;
  const after = now.deliverable as Verdict;
  if (RANK[after] > RANK[before]) changes.push({ field: "deliverable", from: before, to: after });
  for (const flag of FLAGS)
    if (now[flag] === true && baseline[flag] !== true)
      changes.push({ field: flag, from: baseline[flag] ?? false, to: true });
  return changes;
}

const DOMAIN_FIELDS = ["valid", "mx_found", "null_mx", "has_spf", "dmarc_policy", "catch_all", "disposable"] as const;

export const observeDomain = (r: DomainResult) => Object.fromEntries(DOMAIN_FIELDS.map((f) => [f, r[f]]));

export function compareDomain(baseline: Record<string, unknown>, now: Record<string, unknown>): Change[] {
  const known = (v: unknown) => v !== null && v !== undefined;
  return DOMAIN_FIELDS.filter((f) => known(baseline[f]) && known(now[f]) && baseline[f] !== now[f]).map((field) => ({
    field,
    from: baseline[field],
    to: now[field],
  }));
}

/** Saved lists of at most 500 entries, like entity monitors: a run walks them as one batch. */
export const MONITOR_MAX_ENTRIES = 500;

export const addressMonitor = (entryKey: (input: string) => string): MonitorShape<string, EmailResult> => ({
  entryKey,
  observe: observeAddress,
  compare: compareAddress,
  label: (r) => r.email,
  tally: {
    deliverable: (r) => r.deliverable === "deliverable",
    risky: (r) => r.deliverable === "risky",
    undeliverable: (r) => r.deliverable === "undeliverable",
  },
  listField: "emails",
  maxEntries: MONITOR_MAX_ENTRIES,
});

export const domainMonitor: MonitorShape<string, DomainResult> = {
  entryKey: (raw) => normalizeDomain(raw) ?? `invalid:${raw.toLowerCase()}`,
  observe: observeDomain,
  compare: compareDomain,
  label: (r) => r.domain,
  tally: { mx_found: (r) => r.mx_found === true },
  listField: "domains",
  maxEntries: MONITOR_MAX_ENTRIES,
  // The sample domain of the offline stand-ins (docs/offline.md); any domain the account sends mail to works.
  example: "acme.example",
  family: "email_domain",
  path: "domain-monitors",
};
