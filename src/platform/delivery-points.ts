import { budgetFor, guarded, inPool, partnerSettings } from "./partners/guard";
import { google } from "./partners/google";
import { smarty } from "./partners/smarty";
import { takeCalls } from "./partners/spend";
import { liveSource, standInLabel } from "../engines/sources";
import {
  UNASKED,
  type DeliveryAnswer,
  type DeliveryPointPartner,
  type DeliveryQuery,
  type PartnerCheck,
} from "./partners/types";

export type { DeliveryAnswer, DeliveryQuery } from "./partners/types";

const FACTORIES: Record<string, (env: Env) => DeliveryPointPartner | null> = { smarty, google };

/** Partners named in DELIVERY_POINT_PARTNERS, in order, that have their secrets. */
export function deliveryPointPartners(env: Env): DeliveryPointPartner[] {
  return (env.DELIVERY_POINT_PARTNERS ?? "")
    .split(",")
    .map((name) => FACTORIES[name.trim()]?.(env) ?? null)
    .filter((p): p is DeliveryPointPartner => p !== null);
}

export const DELIVERY_POINT_DATASETS = ["smarty-us-street", "google-address-validation"] as const;

/** The partner that answers a country: the first configured one covering it (Smarty for the US, then Google). */
export const partnerFor = (partners: DeliveryPointPartner[], country: string) =>
  partners.find((p) => p.covers(country)) ?? null;

/** Whether a configured partner covers the country (else an address there is not checked and pays no surcharge). */
export const isCovered = (env: Env, country: string) => partnerFor(deliveryPointPartners(env), country) !== null;

const IN_FLIGHT = 4;

/**
 * Delivery-point checks of distinct addresses (by key) for one account: grouped by partner and sent in as few calls as
 * the partner takes (Smarty: 100 a call), within the account's daily ceiling (one call each) and the time budget.
 * Addresses no partner covers are absent from the map; covered ones no partner answered for map to an unanswered
 * check (its partner cited `none` when it was asked).
 */
export async function checkAddresses(
  env: Env,
  accountId: string | null,
  asks: { key: string; query: DeliveryQuery }[],
): Promise<Map<string, PartnerCheck<DeliveryAnswer>>> {
  const partners = deliveryPointPartners(env);
  const out = new Map<string, PartnerCheck<DeliveryAnswer>>();
  const groups = new Map<DeliveryPointPartner, { key: string; query: DeliveryQuery }[]>();
  const seen = new Set<string>();
  for (const ask of asks) {
    const partner = partnerFor(partners, ask.query.country);
    if (!partner || seen.has(ask.key)) continue;
    seen.add(ask.key);
    out.set(ask.key, UNASKED);
    groups.set(partner, [...(groups.get(partner) ?? []), ask]);
  }
  const calls = [...groups].flatMap(([partner, list]) =>
    Array.from({ length: Math.ceil(list.length / partner.perCall) }, (_, i) => ({
      partner,
      list: list.slice(i * partner.perCall, (i + 1) * partner.perCall),
    })),
  );
  if (!calls.length) return out;
  // The ceiling counts addresses, not HTTP requests: partners bill per address looked up.
  let granted = await takeCalls(env, accountId, seen.size);
  const allowed = calls.flatMap((call) => {
    const list = call.list.slice(0, Math.max(0, granted));
    granted -= list.length;
    return list.length ? [{ ...call, list }] : [];
  });
  const settings = partnerSettings(env);
  const budget = budgetFor(env);
  await inPool(allowed, IN_FLIGHT, async ({ partner, list }) => {
    const answers = await guarded(partner.name, settings, budget, (signal) =>
      partner.check(
        list.map((a) => a.query),
        signal,
      ),
    );
    const cited = { dataset: partner.dataset, version: new Date().toISOString(), standIn: standInLabel(env) };
    const sources = [liveSource({ ...cited, answered: answers !== null })];
    list.forEach((ask, i) => out.set(ask.key, { answer: answers?.[i] ?? null, sources }));
  });
  return out;
}
