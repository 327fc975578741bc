import type { Source } from "../../engines/product";
import { runChecks } from "./checks";
import type { ConsistencyResult, Level, Signals } from "./result";
import { riskLevel, riskScoreOf } from "../risk";

/** Risk points of one disagreeing check: ten a unit of its weight (docs/consistency.md, "Risk"). */
export const RISK_POINTS_PER_WEIGHT = 10;

const levelOf = (score: number | null): Level | null =>
  score === null ? null : score >= 80 ? "consistent" : score >= 50 ? "mixed" : "inconsistent";

/** Each dataset+version once, in the order first cited. */
export function unionOf(sources: Source[]): Source[] {
  const seen = new Map(sources.map((s) => [`${s.dataset}\u0000${s.version}`, s]));
  return [...seen.values()];
}

/**
 * The answer from the signals: every check, then `score = round(100 * agreeing weight / decided weight)` (null when no
 * check was decided), its level, and a risk score of the disagreements. Everything is recomputable from `checks`.
 */
export function consistencyAnswer(
  signals: Signals,
  sources: Source[],
  reason: ConsistencyResult["reason"] = null,
): ConsistencyResult {
  const checks = runChecks(signals);
  const sum = (result: string) => checks.filter((c) => c.result === result).reduce((total, c) => total + c.weight, 0);
  const agreeing = sum("agree");
  const decided = agreeing + sum("disagree");
  const score = decided ? Math.round((100 * agreeing) / decided) : null;
  const risk_components = Object.fromEntries(
    checks.filter((c) => c.result === "disagree").map((c) => [c.name, c.weight * RISK_POINTS_PER_WEIGHT]),
  );
  const risk_score = riskScoreOf(risk_components);
  return {
    signals,
    checks,
    agreements: checks.filter((c) => c.result === "agree").map((c) => c.name),
    disagreements: checks.filter((c) => c.result === "disagree").map((c) => c.name),
    score,
    level: levelOf(score),
    risk_score,
    risk_level: riskLevel(risk_score),
    risk_components,
    reason,
    sources: unionOf(sources),
  };
}
