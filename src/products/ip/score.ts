import type { IpResult } from "./result";
import { riskFields } from "../risk";

/**
 * The documented, recomputable risk of an IP answer (docs/ip.md, "Risk"): points per signal present in the answer's
 * own fields, summed and capped at 100. An allow list the address is on sets the score to 0.
 */
export const RISK_POINTS = {
  invalid_ip: 100,
  deny_list: 100,
  tor_exit: 80,
  vpn: 60,
  proxy: 60,
  reserved: 50,
  hosting: 40,
  unplaced: 20,
} as const;

/** Points of the account's own latest report on the address (`feedback`); `legit` adds none. */
export const REPORTED_POINTS = { fraud: 80, chargeback: 80, abuse: 60, spam: 40, legit: 0 } as const;

type Signals = Pick<
  IpResult,
  "valid" | "reserved" | "placed" | "hosting" | "tor" | "vpn" | "proxy" | "list" | "feedback" | "reason" | "anycast"
>;

export function riskComponents(a: Signals): Record<string, number> {
  if (!a.valid) return { invalid_ip: RISK_POINTS.invalid_ip };
  if (a.list?.kind === "allow") return { allow_list: 0 };
  const parts: Record<string, number> = {};
  if (a.list?.kind === "deny") parts.deny_list = RISK_POINTS.deny_list;
  const reported = a.feedback ? REPORTED_POINTS[a.feedback.outcome] : 0;
  if (reported) parts[`reported_${a.feedback!.outcome}`] = reported;
  if (a.reserved) parts.reserved = RISK_POINTS.reserved;
  if (a.tor) parts.tor_exit = RISK_POINTS.tor_exit;
  if (a.vpn) parts.vpn = RISK_POINTS.vpn;
  if (a.proxy) parts.proxy = RISK_POINTS.proxy;
  if (a.hosting) parts.hosting = RISK_POINTS.hosting;
  // An address the complete country file does not place; not counted while no such file is installed, nor for an
  // anycast address, which is placed nowhere on purpose.
  const unknown = a.reason === "dataset_not_installed" || a.reason === "not_covered";
  if (!a.reserved && !a.placed && !a.anycast && !unknown) parts.unplaced = RISK_POINTS.unplaced;
  return parts;
}

/** The answer's risk fields from its other fields. */
export function withRisk(a: Omit<IpResult, "risk_score" | "risk_components" | "risk_level">): IpResult {
  return { ...a, ...riskFields(riskComponents(a)) };
}
