import { budgetFor, guarded, inPool, partnerSettings } from "./partners/guard";
import { takeCalls } from "./partners/spend";
import { twilio } from "./partners/twilio";
import { liveSource, standInLabel } from "../engines/sources";
import {
  UNASKED,
  type NetworkAnswer,
  type PartnerCheck,
  type PartnerSource,
  type PhoneNetworkPartner,
} from "./partners/types";
import { vonage } from "./partners/vonage";

export type { NetworkAnswer } from "./partners/types";

const FACTORIES: Record<string, (env: Env) => PhoneNetworkPartner | null> = { twilio, vonage };

/** Partners named in PHONE_NETWORK_PARTNERS, in order, that have their secrets. */
export function phoneNetworkPartners(env: Env): PhoneNetworkPartner[] {
  return (env.PHONE_NETWORK_PARTNERS ?? "")
    .split(",")
    .map((name) => FACTORIES[name.trim()]?.(env) ?? null)
    .filter((p): p is PhoneNetworkPartner => p !== null);
}

/** Dataset names a phone answer may cite for a network check. */
export const PHONE_NETWORK_DATASETS = ["twilio-lookup", "vonage-number-insight"] as const;

const IN_FLIGHT = 8;

/**
 * The live network check of distinct E.164 numbers for one account (docs/partners.md): one partner call per number,
 * within the account's daily ceiling and the lookup's time budget, each partner in order until one answers. A number
 * no partner answered for maps to null (the product answers it unchecked, `partner_unavailable`).
 */
export async function checkNumbers(
  env: Env,
  accountId: string | null,
  numbers: string[],
): Promise<Map<string, PartnerCheck<NetworkAnswer>>> {
  const distinct = [...new Set(numbers)];
  const partners = phoneNetworkPartners(env);
  const out = new Map<string, PartnerCheck<NetworkAnswer>>(distinct.map((n) => [n, UNASKED]));
  if (!partners.length || !distinct.length) return out;
  const granted = await takeCalls(env, accountId, distinct.length);
  const settings = partnerSettings(env);
  const budget = budgetFor(env);
  await inPool(distinct.slice(0, granted), IN_FLIGHT, async (e164) => {
    const sources: PartnerSource[] = [];
    for (const partner of partners) {
      const answer = await guarded(partner.name, settings, budget, (signal) => partner.check(e164, signal));
      const cited = { dataset: partner.dataset, version: new Date().toISOString(), standIn: standInLabel(env) };
      sources.push(liveSource({ ...cited, answered: answer !== null }));
      if (answer) {
        out.set(e164, { answer, sources });
        return;
      }
    }
    out.set(e164, { answer: null, sources });
  });
  return out;
}
