import uPlot from "uplot";

/**
 * The usage page's charts (uPlot, bundled here: no CDN). The page carries its figures in `data-usage` (the server's
 * Usage: days, products and a series per product for requests, answers and credits); each `[data-chart]` element
 * becomes one chart with a line per product.
 */
interface Usage {
  days: number[];
  products: string[];
  requests: Record<string, number[]>;
  answers: Record<string, number[]>;
  credits: Record<string, number[]>;
}

const COLOURS = ["#2f5bd3", "#d3492f", "#2f9e5b", "#b07b0c", "#7b3fb0", "#0c8fa3"];

function draw(element: HTMLElement, usage: Usage, series: Record<string, number[]>) {
  const width = Math.max(320, element.clientWidth || 600);
  const data: uPlot.AlignedData = [
    usage.days.map((ms) => ms / 1000),
    ...usage.products.map((p) => series[p] ?? usage.days.map(() => 0)),
  ];
  new uPlot(
    {
      width,
      height: 200,
      scales: { x: { time: true } },
      axes: [{}, { size: 50 }],
      series: [{}, ...usage.products.map((label, i) => ({ label, stroke: COLOURS[i % COLOURS.length]!, width: 2 }))],
    },
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
