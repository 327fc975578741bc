import uPlot from "uplot";

/**
 * The usage page's charts (uPlot, bundled here: no CDN). The page carries its figures in `data-usage` (the server's
 * Usage: days, products and a series per product for requests, answers and credits); each `[data-chart]` element
 * becomes one chart with a line per product, or with `data-stacked` bars of each day's total stacked by product.
 */
interface Usage {
  days: number[];
  products: string[];
  requests: Record<string, number[]>;
  answers: Record<string, number[]>;
  credits: Record<string, number[]>;
}

/** One per registered product, then grey (the seventh: `unknown`, a charge recorded before the ledger named one). */
const COLOURS = ["#2f5bd3", "#d3492f", "#2f9e5b", "#b07b0c", "#7b3fb0", "#0c8fa3", "#8a8a8a"];

const colour = (i: number) => COLOURS[i % COLOURS.length]!;

function lines(usage: Usage, series: Record<string, number[]>): Pick<uPlot.Options, "series"> & { data: number[][] } {
  return {
    data: usage.products.map((p) => series[p] ?? usage.days.map(() => 0)),
    series: [{}, ...usage.products.map((label, i) => ({ label, stroke: colour(i), width: 2 }))],
  };
}

/**
 * Stacked bars without a plug-in: product i is drawn as the running sum of products 0..i, tallest first, so each
 * shorter bar covers the one before it and the visible band is the product's own share; the legend shows its own value.
 */
function stacked(usage: Usage, series: Record<string, number[]>): ReturnType<typeof lines> {
  const own = usage.products.map((p) => series[p] ?? usage.days.map(() => 0));
  const running = own.map((_, i) => usage.days.map((_, d) => own.slice(0, i + 1).reduce((a, s) => a + (s[d] ?? 0), 0)));
  const order = usage.products.map((_, i) => i).reverse();
  const bars = uPlot.paths.bars!({ size: [0.7, 40] });
  return {
    data: order.map((i) => running[i]!),
    series: [
      {},
      ...order.map((i) => ({
        label: usage.products[i]!,
        stroke: colour(i),
        fill: colour(i),
        paths: bars,
        points: { show: false },
        value: (_u: uPlot, _v: number | null, _s: number, d: number | null) => String(d === null ? "" : own[i]![d]),
      })),
    ],
  };
}

function draw(element: HTMLElement, usage: Usage, series: Record<string, number[]>) {
  const width = Math.max(320, element.clientWidth || 600);
  const chart = element.dataset.stacked ? stacked(usage, series) : lines(usage, series);
  const data: uPlot.AlignedData = [usage.days.map((ms) => ms / 1000), ...chart.data];
  new uPlot(
    { width, height: 200, scales: { x: { time: true } }, axes: [{}, { size: 50 }], series: chart.series },
    data,
    element,
  );
  element.dataset.drawn = "true";
}

const root = document.getElementById("usage-charts");
const raw = root?.dataset.usage;
if (root && raw) {
  const usage = JSON.parse(raw) as Usage;
  for (const element of root.querySelectorAll<HTMLElement>("[data-chart]")) {
    const name = element.dataset.chart as "requests" | "answers" | "credits";
    draw(element, usage, usage[name]);
  }
}
