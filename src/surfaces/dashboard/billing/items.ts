/**
 * What can be bought (docs/billing.md#buying-credits): packs of credits that never expire, and the monthly plans.
 * Prices live in Stripe; the Worker knows them by the ids the operator configures. Apart from ./config.ts, which
 * needs the Worker's Env, so the Stripe stand-in (test/fixtures) names the items with the same labels.
 */
export const PACKS = {
  pack_1000: { credits: 1_000, label: "1,000 credits" },
  pack_10000: { credits: 10_000, label: "10,000 credits" },
  pack_100000: { credits: 100_000, label: "100,000 credits" },
} as const;
export const PAID_PLANS = {
  starter: { label: "Starter: 1,000 credits a month" },
  growth: { label: "Growth: 10,000 credits a month" },
} as const;

export type PackName = keyof typeof PACKS;
export type PaidPlan = keyof typeof PAID_PLANS;
export type Item = PackName | PaidPlan;

export const isPack = (item: string): item is PackName => item in PACKS;
export const isPaidPlan = (item: string): item is PaidPlan => item in PAID_PLANS;
