import { expect } from "vitest";
import { admin, recordStored } from "../helpers";

/** What every lookup makes before its answer, whatever its product, route or inputs (design.md, "The hot path"). */
export const ONE_CALL = { do: 1, d1_primary: 0 };

export interface RouteFigures {
  route: string;
  requests: number;
  before_answer: Record<"do" | "d1_primary", { mean: number; max: number }>;
  d1_primary_writes: Record<"before_answer" | "after_answer", { mean: number; max: number }>;
}

/** Waits until the request's record is stored by the queue's consumer, so its after-answer work has run. */
export async function logged(response: Response) {
  await recordStored(response.headers.get("X-Request-Id")!);
}

/** The Worker's counters of one route since they were last cleared. */
export async function figuresOf(route: string): Promise<RouteFigures> {
  const { routes } = await admin<{ routes: RouteFigures[] }>("GET", "/round-trips");
  const figures = routes.find((r) => r.route === route);
  if (!figures) throw new Error(`no figures for ${route}`);
  return figures;
}

/** One call to the account's object and no D1 primary read before each answer; no primary write at all. */
export function expectOneCall(figures: RouteFigures) {
  expect({ do: figures.before_answer.do.max, d1_primary: figures.before_answer.d1_primary.max }).toEqual(ONE_CALL);
  expect(figures.d1_primary_writes).toEqual({ before_answer: { mean: 0, max: 0 }, after_answer: { mean: 0, max: 0 } });
}
