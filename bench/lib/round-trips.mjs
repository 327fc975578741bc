// @ts-check
// The Worker's own per-route figures (GET /admin/v1/round-trips, docs/operations.md#round-trips): storage round trips
// before and after the answer, and the Worker-measured time to the answer, product time and the rest. Per isolate:
// `wrangler dev` runs one, so they cover every request of a bench.

export const KINDS = ["do", "d1_primary", "d1_replica", "queue", "r2"];
const KIND_LABELS = { do: "DO", d1_primary: "D1 pri", d1_replica: "D1 rep", queue: "queue", r2: "R2" };

/** Starts the figures again (reading and resetting are not counted). */
export async function resetRoundTrips(admin) {
  await admin.call("DELETE", "/round-trips");
}

/** `{route pattern: figures}` since the last reset. */
export async function readRoundTrips(admin) {
  const { data } = await admin.call("GET", "/round-trips");
  return Object.fromEntries(data.routes.map((r) => [r.route, r]));
}

/** What a bench keeps of one route's figures: mean round trips per request, and the Worker's own p50/p90 ms. */
export function summariseRoute(figures) {
  if (!figures) return null;
  const means = (side) => Object.fromEntries(KINDS.map((k) => [k, side[k].mean]));
  return {
    requests: figures.requests,
    before_answer: means(figures.before_answer),
    after_answer: means(figures.after_answer),
    max_before_answer: Object.fromEntries(KINDS.map((k) => [k, figures.before_answer[k].max])),
    worker_total_ms: figures.total_ms,
    worker_product_ms: figures.product_ms,
    worker_other_ms: figures.other_ms,
  };
}

/** One row per `[label, summary]`: mean round trips per request by kind, before | after the answer, and Worker p50s. */
export function printRoundTrips(rows) {
  const f = (n) => (n === null || n === undefined ? "-" : Number.isInteger(n) ? String(n) : n.toFixed(2));
  const head = [
    "route".padEnd(36),
    "requests".padStart(9),
    ...KINDS.map((k) => KIND_LABELS[k].padStart(7)),
    " |",
    ...KINDS.map((k) => KIND_LABELS[k].padStart(7)),
    "  total p50".padStart(12),
    "product p50".padStart(12),
    "other p50".padStart(10),
  ];
  console.log(
    `\n${"".padEnd(45)}${"before the answer".padStart(35)} ` +
      `|${"after the answer".padStart(35)}${"Worker-measured ms".padStart(34)}`,
  );
  console.log(head.join(""));
  for (const [label, s] of rows) {
    if (!s) {
      console.log(`${label.padEnd(36)}${"(no figures)".padStart(9)}`);
      continue;
    }
    console.log(
      [
        label.padEnd(36),
        String(s.requests).padStart(9),
        ...KINDS.map((k) => f(s.before_answer[k]).padStart(7)),
        " |",
        ...KINDS.map((k) => f(s.after_answer[k]).padStart(7)),
        f(s.worker_total_ms.p50).padStart(12),
        f(s.worker_product_ms.p50).padStart(12),
        f(s.worker_other_ms.p50).padStart(10),
      ].join(""),
    );
  }
}
