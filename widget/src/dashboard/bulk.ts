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

const root = document.getElementById("run");
const url = root?.dataset.progressUrl;

function show(job: Job) {
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
  const open = openActions(job);
  for (const control of document.querySelectorAll<HTMLElement>("[data-action]"))
    control.hidden = !open[control.dataset.action as RunAction];
}

async function poll() {
  if (!url) return;
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!response.ok) return;
    const { job } = (await response.json()) as { job: Job };
    show(job);
    if (!isGoing(job.status)) {
      if (root) root.dataset.going = "false";
      return;
    }
  } catch {
    // A dropped connection: try again at the next tick.
  }
  setTimeout(poll, POLL_MS);
}

if (root?.dataset.going === "true") setTimeout(poll, POLL_MS);
