/**
 * Plan rules as pure functions (spec, "Billing"). Plan credits arrive once per calendar month (UTC), roll over up to
 * three months' allowance, and stay usable for 60 days after a plan is cancelled. Pack credits never expire.
 */
export const PLANS = {
  /** The monthly free grant. */
  free: { monthlyCredits: 100 },
  starter: { monthlyCredits: 1_000 },
  growth: { monthlyCredits: 10_000 },
  /** Invoiced accounts: no automatic grant, credits are added by the operator. */
  enterprise: { monthlyCredits: 0 },
} as const;

export type PlanName = keyof typeof PLANS;

export const PLAN_NAMES = Object.keys(PLANS) as [PlanName, ...PlanName[]];

export const ROLLOVER_MONTHS = 3;
export const CANCEL_GRACE_MS = 60 * 24 * 3600 * 1000;
export const FAIR_USE_WINDOW_MS = 30 * 24 * 3600 * 1000;
export const FAIR_USE_FLOOR = 500;

/** Months since year 0, so month arithmetic is plain subtraction. */
export const monthIndex = (ms: number) => {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};

export const monthStart = (index: number) => Date.UTC(Math.floor(index / 12), index % 12, 1);

/**
 * Plan credits after `months` monthly grants: each adds the allowance, never past the roll-over cap, never taking any
 * away.
 */
export function applyMonthlyGrants(planCredits: number, monthlyCredits: number, months: number): number {
  let credits = planCredits;
  const cap = monthlyCredits * ROLLOVER_MONTHS;
  for (let i = 0; i < Math.min(months, ROLLOVER_MONTHS); i++)
    credits = Math.max(credits, Math.min(credits + monthlyCredits, cap));
  return credits;
}

/** Undeliverable verdicts that needed a mailbox check are free up to this many in the rolling window. */
export const freeUndeliverableLimit = (billedAnswers: number) => Math.max(FAIR_USE_FLOOR, billedAnswers);

/** Spend charged to plan credits first, then to pack credits. */
export function splitCharge(credits: number, plan: number, pack: number) {
  const fromPlan = Math.min(credits, plan);
  const fromPack = Math.min(credits - fromPlan, pack);
  return { fromPlan, fromPack };
}

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
