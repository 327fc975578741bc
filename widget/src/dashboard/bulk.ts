/**
 * The bulk run page's progress (docs/dashboard.md, "Bulk runs"): while the run is queued or processing, asks the
 * dashboard's JSON endpoint (`data-progress-url`, same origin, the session's cookie) once a second and moves
 * `progress#run-progress` (value = processed, max = total), `#run-status` and the counters. When the run settles, it
 * shows the controls its state allows (download, resume, redelivery) and hides cancel, by the rule the server renders
 * them with (src/engines/bulk/run-actions.ts, bundled in). No framework.
 */
import { isGoing, openActions, type RunAction } from "../../../src/engines/bulk/run-actions";

interface Job {
  status: string;
  total: number;
  processed: number;
  credits_used: number;
  stopped_reason: string | null;
  webhook_status: string | null;
  webhook_detail: string | null;
  [counter: string]: unknown;
}

const POLL_MS = 1_000;
/** A run stopped for credits goes on by itself when they arrive: the page keeps looking, less often. */
const STOPPED_POLL_MS = 5_000;

const root = document.getElementById("run");
const url = root?.dataset.progressUrl;

function show(job: Job, suppressedAdded: number) {
  const bar = document.getElementById("run-progress");
  if (bar) {
    bar.setAttribute("max", String(Math.max(job.total, 1)));
    bar.setAttribute("value", String(job.processed));
  }
  const set = (id: string, text: string) => {
    const element = document.getElementById(id);
    if (element) element.textContent = text;
  };
  set("run-status", job.status);
  set("run-stopped", job.stopped_reason ? ` (stopped: ${job.stopped_reason})` : "");
  set("run-processed", `${job.processed} / ${job.total}`);
  set("run-credits", String(job.credits_used));
  for (const cell of document.querySelectorAll<HTMLElement>("[data-counter]"))
    cell.textContent = String(job[cell.dataset.counter ?? ""] ?? 0);
  set("run-suppressed-count", String(suppressedAdded));
  const suppressed = document.getElementById("run-suppressed");
  if (suppressed) suppressed.hidden = suppressedAdded === 0;
  for (const notice of document.querySelectorAll<HTMLElement>("[data-stop]"))
    notice.hidden = job.stopped_reason !== notice.dataset.stop;
  const open = openActions(job);
  for (const control of document.querySelectorAll<HTMLElement>("[data-action]"))
    control.hidden = !open[control.dataset.action as RunAction];
}

async function poll() {
  if (!url) return;
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!response.ok) return;
    const { job, suppressed_added } = (await response.json()) as { job: Job; suppressed_added?: number };
    show(job, suppressed_added ?? 0);
    if (!isGoing(job.status)) {
      if (root) root.dataset.going = "false";
      if (job.stopped_reason === "insufficient_credits") setTimeout(poll, STOPPED_POLL_MS);
      return;
    }
    if (root) root.dataset.going = "true";
  } catch {
    // A dropped connection: try again at the next tick.
  }
  setTimeout(poll, POLL_MS);
}

if (root?.dataset.going === "true") setTimeout(poll, POLL_MS);
else if (root?.dataset.stopped === "insufficient_credits") setTimeout(poll, STOPPED_POLL_MS);
