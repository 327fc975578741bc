/**
 * The risk rule every product shares (products.md, "Shared by every product"): `risk_score` is the sum of
 * `risk_components`, capped at 100, and `risk_level` is `low` 0-29, `medium` 30-69, `high` 70-100. Written once so
 * every answer can be recomputed by the same formula.
 */
export type RiskLevel = "low" | "medium" | "high";

export const riskLevel = (score: number): RiskLevel => (score < 30 ? "low" : score < 70 ? "medium" : "high");

export const riskScoreOf = (components: Record<string, number>): number =>
  Math.min(
    100,
    Object.values(components).reduce((sum, points) => sum + points, 0),
  );

/** The three risk fields of an answer from its components. */
export function riskFields(risk_components: Record<string, number>) {
  const risk_score = riskScoreOf(risk_components);
  return { risk_score, risk_level: riskLevel(risk_score), risk_components };
}
